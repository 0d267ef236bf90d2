/**
 * Summary of a V8 .cpuprofile (node --cpu-prof): top functions by self time, by inclusive time
 * (recursion counted once per stack), and self time grouped by origin (project source file,
 * npm package, node internals, GC/idle/program).
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

function shortUrl(url: string): string {
  if (!url) return '';
  let u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) return u.slice(nm + '/node_modules/'.length);
  const src = u.indexOf('/src/');
  if (src >= 0) return u.slice(src + 1);
  const scripts = u.indexOf('/scripts/');
  if (scripts >= 0) return u.slice(scripts + 1);
  u = u.replace(/^node:/, 'node:');
  return u;
}

function frameKey(f: CallFrame): string {
  const name = f.functionName || '(anonymous)';
  const where = shortUrl(f.url);
  return where ? `${name}  ${where}:${f.lineNumber + 1}` : name;
}

function originOf(f: CallFrame): string {
  const url = f.url;
  if (!url) {
    const n = f.functionName;
    if (n === '(garbage collector)' || n === '(idle)' || n === '(program)' || n === '(root)') return n;
    return '(native/builtin)';
  }
  if (url.startsWith('node:')) return 'node internals';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = u.slice(nm + '/node_modules/'.length).split('/');
    return `npm ${rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const src = u.indexOf('/src/');
  if (src >= 0) return u.slice(src + 1);
  return shortUrl(url);
}

export interface ProfileSummary {
  totalMs: number;
  sampledMs: number;
  selfTop: { key: string; ms: number; pct: number }[];
  inclusiveTop: { key: string; ms: number; pct: number }[];
  byOrigin: { origin: string; ms: number; pct: number }[];
}

export function summarizeProfile(path: string, top = 25): ProfileSummary {
  const prof = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  for (const n of prof.nodes) byId.set(n.id, n);
  // Self time per node: each sample's following delta (V8's convention: delta i is the time before
  // sample i, so sample i lasts timeDeltas[i + 1]); fall back to hitCount × mean interval.
  const selfUs = new Map<number, number>();
  const samples = prof.samples ?? [];
  const deltas = prof.timeDeltas ?? [];
  if (samples.length > 0 && deltas.length === samples.length) {
    for (let i = 0; i < samples.length; i++) {
      const d = i + 1 < deltas.length ? deltas[i + 1] : 0;
      selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + Math.max(0, d));
    }
  } else {
    const hits = prof.nodes.reduce((a, n) => a + (n.hitCount ?? 0), 0);
    const per = hits > 0 ? (prof.endTime - prof.startTime) / hits : 0;
    for (const n of prof.nodes) selfUs.set(n.id, (n.hitCount ?? 0) * per);
  }
  const totalUs = prof.endTime - prof.startTime;
  let busyUs = 0;
  const self = new Map<string, number>();
  const origin = new Map<string, number>();
  for (const n of prof.nodes) {
    const us = selfUs.get(n.id) ?? 0;
    if (us === 0) continue;
    const o = originOf(n.callFrame);
    origin.set(o, (origin.get(o) ?? 0) + us);
    if (o === '(idle)') continue;
    busyUs += us;
    const k = frameKey(n.callFrame);
    self.set(k, (self.get(k) ?? 0) + us);
  }
  // Inclusive: DFS from the root, adding each node's subtree time to every distinct key on its stack.
  const inclusive = new Map<string, number>();
  const subtree = new Map<number, number>();
  const root = prof.nodes[0];
  const sumSubtree = (id: number): number => {
    // Iterative post-order to survive deep stacks.
    const stack: { id: number; i: number }[] = [{ id, i: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const node = byId.get(top.id)!;
      const kids = node.children ?? [];
      if (top.i < kids.length) {
        stack.push({ id: kids[top.i++], i: 0 });
        continue;
      }
      let s = selfUs.get(top.id) ?? 0;
      for (const k of kids) s += subtree.get(k) ?? 0;
      subtree.set(top.id, s);
      stack.pop();
    }
    return subtree.get(id) ?? 0;
  };
  sumSubtree(root.id);
  const walk: { id: number; keys: Set<string> }[] = [{ id: root.id, keys: new Set() }];
  while (walk.length > 0) {
    const { id, keys } = walk.pop()!;
    const node = byId.get(id)!;
    const f = node.callFrame;
    const o = originOf(f);
    let next = keys;
    if (o !== '(root)' && o !== '(idle)' && o !== '(program)' && o !== '(garbage collector)') {
      const k = frameKey(f);
      if (!keys.has(k)) {
        inclusive.set(k, (inclusive.get(k) ?? 0) + (subtree.get(id) ?? 0));
        next = new Set(keys);
        next.add(k);
      }
    }
    for (const c of node.children ?? []) walk.push({ id: c, keys: next });
  }
  const rank = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, us]) => ({ key, ms: us / 1000, pct: busyUs > 0 ? (100 * us) / busyUs : 0 }));
  return {
    totalMs: totalUs / 1000,
    sampledMs: busyUs / 1000,
    selfTop: rank(self, top),
    inclusiveTop: rank(inclusive, top),
    byOrigin: [...origin.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([o, us]) => ({ origin: o, ms: us / 1000, pct: busyUs > 0 ? (100 * us) / busyUs : 0 })),
  };
}

export function formatProfileSummary(path: string, s: ProfileSummary): string {
  const lines: string[] = [];
  lines.push(`CPU profile ${path}`);
  lines.push(`  wall ${s.totalMs.toFixed(0)} ms, on-CPU (non-idle) samples ${s.sampledMs.toFixed(0)} ms; % below are of on-CPU time`);
  lines.push('');
  lines.push('  Self time by origin:');
  for (const o of s.byOrigin) lines.push(`    ${o.pct.toFixed(1).padStart(5)}%  ${o.ms.toFixed(0).padStart(7)} ms  ${o.origin}`);
  lines.push('');
  lines.push('  Top functions by self time:');
  for (const f of s.selfTop) lines.push(`    ${f.pct.toFixed(1).padStart(5)}%  ${f.ms.toFixed(0).padStart(7)} ms  ${f.key}`);
  lines.push('');
  lines.push('  Top functions by inclusive time:');
  for (const f of s.inclusiveTop) lines.push(`    ${f.pct.toFixed(1).padStart(5)}%  ${f.ms.toFixed(0).padStart(7)} ms  ${f.key}`);
  return lines.join('\n');
}
