import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

/** This package's version (package.json), read once. */
export function packageVersion(): string {
  if (cached === null) {
    const pkgPath = fileURLToPath(new URL('../../package.json', import.meta.url));
    cached = (JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string }).version;
  }
  return cached;
}
