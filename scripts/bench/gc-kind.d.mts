/** See gc-kind.mjs. */
export function gcKindName(kind: number | undefined | null): string | null;
