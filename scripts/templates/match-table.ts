/**
 * The jinja2 differential's match table: per template, the cases jinja2 renders and how many the
 * gateway renders byte-identically, for the gateway's path (compiled, with its interpreter
 * fallback) and, with --interpreter, for @huggingface/jinja's interpreter alone.
 *
 *   npx tsx scripts/templates/match-table.ts [--interpreter] [--diffs N]
 */
import { counted, loadCases, loadTemplates, runTemplate, type CaseResult } from '../../test/support/template-jinja2.js';

const interpretOnly = process.argv.includes('--interpreter');
const di = process.argv.indexOf('--diffs');
const showDiffs = di >= 0 ? Number(process.argv[di + 1]) : 0;
const cases = loadCases();
let total = 0;
let same = 0;
let errorCases = 0;
let errorsMatched = 0;
const rows: string[] = ['| template | cases | identical | % |', '| --- | ---: | ---: | ---: |'];
const diffs: CaseResult[] = [];
for (const t of loadTemplates()) {
  const results = runTemplate(t, cases, { interpretOnly });
  const c = results.filter(counted);
  const ok = c.filter((r) => r.verdict === 'identical').length;
  errorCases += results.length - c.length;
  errorsMatched += results.filter((r) => r.verdict === 'both-error').length;
  total += c.length;
  same += ok;
  rows.push(`| ${t.name} | ${c.length} | ${ok} | ${c.length ? ((100 * ok) / c.length).toFixed(1) : '-'} |`);
  diffs.push(...results.filter((r) => r.verdict !== 'identical' && r.verdict !== 'both-error'));
}
rows.push(`| **all** | ${total} | ${same} | ${((100 * same) / total).toFixed(2)} |`);
console.log(rows.join('\n'));
console.log(`\njinja2 raises on ${errorCases} cases; the gateway raises too on ${errorsMatched}.`);
for (const d of diffs.slice(0, showDiffs)) {
  console.log(`\n--- ${d.template} #${d.id} ${d.verdict}`);
  console.log('expected:', JSON.stringify(d.expected.text ?? d.expected.error).slice(0, 1500));
  console.log('actual:  ', JSON.stringify(d.actual.text ?? d.actual.error).slice(0, 1500));
}
