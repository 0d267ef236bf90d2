/**
 * Regenerates the jinja2 differential's fixtures (test/fixtures/templates): the seeded requests
 * (cases.json) and, for every template in src/, jinja2's render of each in transformers'
 * environment (expected/<name>.json); then the template compiler's probe corpus (probes.json,
 * from test/support/template-probes.ts) and jinja2's renders of it (probes-expected.json).
 * Needs Debian's python3-jinja2 (`/usr/bin/python3`); CI only reads the committed fixtures.
 *
 *   npx tsx scripts/templates/regen-fixtures.ts [--count 40] [--seed 26] [--python /usr/bin/python3]
 *
 * To add a template: drop its text into test/fixtures/templates/src/<name>.jinja and rerun.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROBES_EXPECTED_FILE, PROBES_FILE, buildProbes } from '../../test/support/template-probes.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const here = import.meta.dirname;
const fixtures = join(here, '..', '..', 'test', 'fixtures', 'templates');
const python = arg('python', '/usr/bin/python3');
const cases = execFileSync(python, [join(here, 'gen-cases.py'), arg('count', '40'), arg('seed', '26')], { encoding: 'utf8' });
writeFileSync(join(fixtures, 'cases.json'), cases);
rmSync(join(fixtures, 'expected'), { recursive: true, force: true });
execFileSync(python, [join(here, 'render-jinja2.py'), join(fixtures, 'src'), join(fixtures, 'cases.json'), join(fixtures, 'expected')], {
  stdio: 'inherit',
});
const probes = buildProbes();
writeFileSync(PROBES_FILE, JSON.stringify(probes) + '\n');
execFileSync(python, [join(here, 'render-probes.py'), PROBES_FILE, PROBES_EXPECTED_FILE], { stdio: 'inherit' });
console.log(`fixtures written to ${fixtures} (${probes.probes.length} probes)`);
