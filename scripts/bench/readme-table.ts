/**
 * Prints issue 30's figures from a `npm run bench -- --json FILE` result as the Markdown table of
 * README's "Benchmarks" section, so a new run's numbers replace the old ones in one paste:
 *
 *   npx tsx scripts/bench/readme-table.ts FILE.json
 */
import { readFileSync } from 'node:fs';
import type { Figure } from './figures.js';
import { meetsGoal } from './figures.js';
import { fmtFigure } from './report-issue.js';
import type { Yardstick } from './yardstick.js';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: npx tsx scripts/bench/readme-table.ts FILE.json\n');
  process.exit(2);
}
const json = JSON.parse(readFileSync(file, 'utf8')) as { issue30?: Figure[]; yardstick: Yardstick };
const figs = json.issue30 ?? [];
const cell = (f: Figure, t: 'gateway' | 'ceiling') => fmtFigure(f.values[t], f.unit).replace(/^-$/, '–');
const lines = ['| figure | gateway | http-ceiling | gw ÷ ceiling | goal | met |', '|---|---:|---:|---:|---|---|'];
for (const f of figs) {
  const g = f.values.gateway;
  const c = f.values.ceiling;
  const ratio = f.unit !== '×' && f.unit !== 'count' && g !== undefined && c ? `${(g / c).toFixed(2)}×` : '';
  const met = meetsGoal(f);
  const detail = f.details?.gateway ? ` (${f.details.gateway})` : '';
  lines.push(`| ${f.label} | ${cell(f, 'gateway')}${detail} | ${cell(f, 'ceiling')} | ${ratio} | ${f.goal?.text ?? ''} | ${met === null ? '' : met ? 'yes' : '**no**'} |`);
}
lines.push('', `Machine yardstick: \`js ${json.yardstick.jsUsPerRound.toFixed(1)} µs/round, write(2) ${json.yardstick.syscallNs.toFixed(0)} ns\`.`);
process.stdout.write(`${lines.join('\n')}\n`);
