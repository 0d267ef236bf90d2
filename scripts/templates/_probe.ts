import { runProbes } from '../../test/support/template-probe-run.js';
const r = runProbes();
console.log({ renders: r.renders, identical: r.identical, bothError: r.bothError, skipped: r.skipped, refused: r.refused.length, mismatches: r.mismatches.length });
const ids = new Map<string, number>();
for (const m of r.mismatches) ids.set(m.id, (ids.get(m.id) ?? 0) + 1);
console.log('probes with mismatches', ids.size);
const seen = new Set<string>();
for (const m of r.mismatches) {
  if (seen.has(m.id)) continue;
  seen.add(m.id);
  if (seen.size > Number(process.argv[2] ?? 40)) break;
  console.log(`--- ${m.id} ctx${m.context}: ${m.template.slice(0, 300)}`);
  console.log('  jinja2 :', JSON.stringify(m.expected).slice(0, 300));
  console.log('  gateway:', JSON.stringify(m.actual).slice(0, 300));
}
console.log(r.refused.slice(0, 20));
