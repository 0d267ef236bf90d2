/** Types of bin/bundle.js (plain JS so bin/smg.js can load it before any TypeScript loader). */
export function buildCli(outdir: string, opts?: { sourcemap?: boolean; logLevel?: 'silent' | 'warning' }): Promise<void>;
export function cachedBundle(): Promise<string | null>;
