/**
 * Reads the relative imports of every TypeScript file under src/ and checks them against the
 * layer order of ARCHITECTURE.md: cli → launcher → gateway → api → history → pipeline → workers → engine,
 * with util/ below everything and mock-engine/ beside the engine (it may use the dialect codecs;
 * nothing in production may import it). Imports of test/ from src/ count as upward.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** Higher number = higher layer. A file may import only its own layer or lower ones. */
const LAYERS: Record<string, number> = {
  cli: 80,
  launcher: 70,
  gateway: 60,
  // Beside the protocol front-ends: the HTTP-worker path and the pod discovery that feeds it.
  discovery: 57,
  forward: 55,
  api: 50,
  // The Responses/Conversations store: api/ reads and writes it, the pipeline never sees it.
  history: 45,
  pipeline: 40,
  workers: 30,
  engine: 20,
  // Cross-cutting like util: every layer may mark spans; tracing imports only util.
  tracing: 5,
  util: 0,
};
/**
 * The mock engine sits beside the engine: it may use engine code, and nothing in src/ may import
 * it (bin/smg.js plugs it into the `smg` command).
 */
const MOCK = 'mock-engine';

function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0];
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    out.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
  }
  return out;
}

export interface LayeringReport {
  files: number;
  edges: number;
  upward: Array<{ from: string; to: string }>;
  cycles: string[][];
}

export function layeringReport(): LayeringReport {
  const files = walk(SRC);
  const graph = new Map<string, string[]>();
  const upward: LayeringReport['upward'] = [];
  let edges = 0;
  for (const f of files) {
    const all = importsOf(f);
    for (const d of all) if (!d.startsWith(SRC)) upward.push({ from: relative(ROOT, f), to: relative(ROOT, d) });
    const deps = all.filter((d) => d.startsWith(SRC));
    graph.set(f, deps);
    edges += deps.length;
    const from = layerOf(f);
    for (const d of deps) {
      const to = layerOf(d);
      const bad =
        to === MOCK
          ? from !== MOCK
          : from === MOCK
            ? (LAYERS[to] ?? 99) > LAYERS.engine
            : (LAYERS[to] ?? 99) > (LAYERS[from] ?? -1);
      if (bad) upward.push({ from: relative(ROOT, f), to: relative(ROOT, d) });
    }
  }
  return { files: files.length, edges, upward, cycles: findCycles(graph) };
}

/** Strongly connected components with more than one file (Tarjan), each as a file list. */
function findCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(relative(ROOT, w));
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}
