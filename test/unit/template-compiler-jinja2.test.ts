/**
 * The template compiler against Python jinja2, corner by corner: ~2,200 probe templates (every
 * kind of value through printing, truthiness, operators, tests, member access, slicing, loops,
 * filters, macros and scoping, plus seeded random templates) on the rich semantics context and on
 * random chat contexts, compared with jinja2's renders in transformers' environment
 * (test/fixtures/templates/probes*.json, from scripts/templates/regen-fixtures.ts and
 * render-probes.py). Output must be byte-identical and an error must be an error, except for the
 * probes listed with their reason in docs/reference/template-differences.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runProbes } from '../support/template-probe-run.js';
import { DIFFERENCES_DOC } from '../support/template-jinja2.js';

/** `| \`probe-id\` | reason |` rows of the doc's probe table. */
function listedProbes(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(DIFFERENCES_DOC, 'utf8').split('\n')) {
    const m = /^\|\s*`([a-z0-9]+:\d+)`\s*\|\s*(.+?)\s*\|\s*$/.exec(line);
    if (m) out.set(m[1], m[2]);
  }
  return out;
}

describe('template compiler vs jinja2, probe by probe', () => {
  const run = runProbes();
  const listed = listedProbes();

  it('renders (or refuses) every unlisted probe as jinja2 does', () => {
    const unlisted = run.mismatches.filter((m) => !listed.has(m.id));
    expect(
      unlisted.slice(0, 10).map((m) => `${m.id} ctx${m.context}: ${m.template.slice(0, 200)}\n  jinja2:  ${JSON.stringify(m.expected).slice(0, 300)}\n  gateway: ${JSON.stringify(m.actual).slice(0, 300)}`),
    ).toEqual([]);
  });

  it('lists no probe that now matches', () => {
    const mismatched = new Set(run.mismatches.map((m) => m.id));
    expect([...listed.keys()].filter((id) => !mismatched.has(id))).toEqual([]);
  });

  it('covers thousands of renders, most of them compiled', () => {
    expect(run.renders).toBeGreaterThan(6000);
    expect(run.identical).toBeGreaterThan(3000);
    expect(run.bothError).toBeGreaterThan(2500);
    // Refusals (the interpreter renders those) are only the constructs the compiler leaves out.
    expect(run.refused.length).toBeLessThan(50);
    for (const r of run.refused) expect(r.reason, r.id).toMatch(/^unsupported: /);
  });
});
