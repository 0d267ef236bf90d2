/** `600s`, or `0.25s` for the short timeouts tests use: the unit SMG's texts print. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : Number(s.toFixed(3))}s`;
}
