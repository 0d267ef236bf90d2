/**
 * Production code must not depend on test doubles: nothing in src/ outside src/mock-engine/ may
 * import src/mock-engine/ or test/ (static or dynamic import). The mock engine is plugged into the
 * `smg` command by the entry point, bin/smg.js.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const FORBIDDEN = [join(SRC, 'mock-engine'), join(ROOT, 'test')];
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)'([^']+)'/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file → target` for every relative import of a production file that reaches a forbidden folder. */
function forbiddenImports(): string[] {
  const out: string[] = [];
  for (const file of tsFiles(SRC)) {
    if (FORBIDDEN.some((f) => file.startsWith(`${f}/`))) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const spec = m[1];
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (FORBIDDEN.some((f) => target === f || target.startsWith(`${f}/`))) {
        out.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
      }
    }
  }
  return out;
}

describe('layering', () => {
  it('no production module imports the mock engine or test code', () => {
    expect(forbiddenImports()).toEqual([]);
  });

  it('the scan sees the imports it guards against', () => {
    // The mock engine itself imports the engine layer; if the scan found nothing there it could
    // not find a violation elsewhere either.
    const sample = readFileSync(join(SRC, 'mock-engine', 'codec.ts'), 'utf8');
    expect([...sample.matchAll(SPECIFIER)].map((m) => m[1])).toContain('./wire/seam.js');
  });
});
