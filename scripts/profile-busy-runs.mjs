// usage: node scripts/profile-busy-runs.mjs FILE.cpuprofile [fromFrac] [toFrac] [top]
// The longest runs of consecutive non-idle samples in a main-thread CPU profile (about the longest
// stretches the event loop was held without reaching epoll), each with the frames that filled it.
import { readFileSync } from 'node:fs';
const [file, a = '0', b = '1', top = '8'] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const key = (f) => `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${f.lineNumber + 1}`;
const t = [];
let acc = p.startTime;
for (const d of p.timeDeltas) t.push((acc += d));
const lo = p.startTime + (p.endTime - p.startTime) * Number(a);
const hi = p.startTime + (p.endTime - p.startTime) * Number(b);
const idle = (id) => byId.get(id).callFrame.functionName === '(idle)';
const runs = [];
let cur = null;
for (let i = 0; i < p.samples.length; i++) {
  if (t[i] < lo || t[i] > hi) continue;
  const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
  if (idle(p.samples[i])) {
    if (cur) runs.push(cur);
    cur = null;
    continue;
  }
  cur ??= { start: t[i], ms: 0, frames: new Map() };
  cur.ms += dt;
  // The innermost frame under src/ (or the leaf), for what filled the run.
  let id = p.samples[i];
  let k = key(byId.get(id).callFrame);
  for (let j = id; j !== undefined; j = parent.get(j)) {
    const f = byId.get(j).callFrame;
    if (f.url.includes('/src/')) { k = key(f); break; }
  }
  cur.frames.set(k, (cur.frames.get(k) ?? 0) + dt);
}
if (cur) runs.push(cur);
runs.sort((x, y) => y.ms - x.ms);
console.log(`${runs.length} busy runs; longest:`);
for (const r of runs.slice(0, Number(top))) {
  const fr = [...r.frames].sort((x, y) => y[1] - x[1]).slice(0, 6).map(([k, v]) => `${v.toFixed(1)} ${k}`).join(' | ');
  console.log(`${r.ms.toFixed(1).padStart(6)} ms @${((r.start - p.startTime) / 1e6).toFixed(2)}s  ${fr}`);
}
