// usage: node scripts/turn-trace-report.mjs TRACE.json [PROFILE.cpuprofile|-] [top] [window]
// window: the n-th stretch between the bench's SIGUSR2 marks (long-prompt phase: 0 = streams alone,
// 2 = with long prompts); all turns when absent.
// The long turns turn-tracer.mjs recorded, longest first, each with the GC pauses inside it and,
// given the gateway's CPU profile of the same run, the frames its samples fell in: per sample the
// innermost frame under src/ (or the leaf: natives, "(garbage collector)", "(program)").
import { readFileSync } from 'node:fs';

const [traceFile, profArg, top = '25', win] = process.argv.slice(2);
const profFile = profArg === '-' ? undefined : profArg;
const trace = JSON.parse(readFileSync(traceFile, 'utf8'));
if (win !== undefined) {
  const [from, to] = [trace.marks[Number(win)], trace.marks[Number(win) + 1] ?? Infinity];
  trace.turns = trace.turns.filter((x) => x.fromUs >= from && x.toUs <= to);
  console.log(`window ${win}: ${((to - from) / 1e6).toFixed(1)} s, ${trace.turns.length} turns over ${trace.thresholdMs} ms`);
}
const h = trace.hists[win === undefined ? trace.hists.length - 1 : Number(win) + 1] ?? {};
console.log(`turn CPU histogram (ms bucket: count): ${JSON.stringify(h)}`);
let prof = null;
if (profFile) {
  const p = JSON.parse(readFileSync(profFile, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const short = (f) => `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(node_modules|src)\//, '$1/').replace(/^.*\//, '')}:${f.lineNumber + 1}`;
  const label = new Map();
  const labelOf = (id) => {
    let k = label.get(id);
    if (k !== undefined) return k;
    const leaf = byId.get(id).callFrame;
    k = short(leaf);
    const chain = [];
    for (let j = id; j !== undefined; j = parent.get(j)) {
      const f = byId.get(j).callFrame;
      if (f.url.includes('/src/') || f.url.includes('.build/')) chain.push(short(f));
      if (chain.length === 2) break;
    }
    if (chain.length) k = `${chain.reverse().join(' > ')}${chain.at(-1) === short(leaf) ? '' : ` [${leaf.functionName || '(anon)'}]`}`;
    label.set(id, k);
    return k;
  };
  const t = [];
  let acc = p.startTime;
  for (const d of p.timeDeltas) t.push((acc += d));
  prof = { p, t, labelOf, byId };
  console.log(`profile ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s, ${p.samples.length} samples`);
}

const turns = [...trace.turns].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, Number(top));
for (const turn of turns) {
  const gcs = trace.gcs.filter((g) => g.atUs + g.ms * 1000 >= turn.fromUs && g.atUs <= turn.toUs);
  const gcText = gcs.map((g) => `${g.kind} ${g.ms.toFixed(2)}`).join(', ');
  console.log(`\n${turn.cpuMs.toFixed(2)} ms CPU (wall ${((turn.toUs - turn.fromUs) / 1000).toFixed(2)}, waited ${turn.waitMs.toFixed(2)}) at ${turn.fromUs}${gcText ? `; gc: ${gcText}` : ''}`);
  if (!prof) continue;
  const { p, t, labelOf } = prof;
  const frames = new Map();
  let total = 0;
  // Sample i covers [t[i], t[i+1]).
  for (let i = 0; i < p.samples.length - 1; i++) {
    if (t[i + 1] <= turn.fromUs || t[i] >= turn.toUs) continue;
    const ms = (Math.min(t[i + 1], turn.toUs) - Math.max(t[i], turn.fromUs)) / 1000;
    const k = labelOf(p.samples[i]);
    frames.set(k, (frames.get(k) ?? 0) + ms);
    total += ms;
  }
  const rows = [...frames].sort((a, b) => b[1] - a[1]).filter(([k, ms]) => ms >= 0.1 && k !== '(idle) :0');
  console.log(`  sampled ${total.toFixed(2)} ms; idle ${(frames.get('(idle) :0') ?? 0).toFixed(2)}`);
  for (const [k, ms] of rows.slice(0, 14)) console.log(`  ${ms.toFixed(2).padStart(6)}  ${k}`);
}
