/**
 * The probe corpus of the template compiler's jinja2 differential: small templates
 * (template-probe-sources.ts) and seeded random ones (template-fuzz.ts), each with the contexts it
 * renders on. scripts/templates/regen-fixtures.ts writes it to test/fixtures/templates/probes.json
 * (contexts by index) and render-probes.py renders it with jinja2; the test reads both files, so
 * both sides see the same JSON values.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { contexts } from './chat-contexts.js';
import { TemplateFuzzer } from './template-fuzz.js';
import { INLINE_TEMPLATES, MACRO_TEMPLATES, SEMANTICS_TEMPLATES } from './template-probe-sources.js';
import { CTX } from './template-semantics.js';

export interface Probe {
  /** `suite:index`, the key template-differences.md lists a difference by. */
  readonly id: string;
  readonly template: string;
  /** Indexes into ProbeFile.contexts. */
  readonly contexts: number[];
}

export interface ProbeFile {
  readonly contexts: Record<string, unknown>[];
  readonly probes: Probe[];
}

export type ProbeOutcome = { text: string } | { error: string } | { syntax: string } | { nondeterministic: true };

export const PROBES_FILE = join(import.meta.dirname, '..', 'fixtures', 'templates', 'probes.json');
export const PROBES_EXPECTED_FILE = join(import.meta.dirname, '..', 'fixtures', 'templates', 'probes-expected.json');

function parses(source: string): boolean {
  try {
    new Template(source);
    return true;
  } catch {
    return false;
  }
}

/** Builds the corpus (deterministic: fixed seeds). */
export function buildProbes(): ProbeFile {
  const all: Record<string, unknown>[] = [];
  const index = new Map<string, number>();
  const ref = (ctx: Record<string, unknown>): number => {
    const key = JSON.stringify(ctx);
    let i = index.get(key);
    if (i === undefined) {
      i = all.length;
      all.push(JSON.parse(key) as Record<string, unknown>);
      index.set(key, i);
    }
    return i;
  };
  const rich = (seed: number, n: number): number[] => [ref(CTX), ...contexts(seed, n).map((c) => ref({ ...CTX, ...c }))];
  const probes: Probe[] = [];
  const semantics = rich(3, 3);
  SEMANTICS_TEMPLATES.forEach((template, i) => probes.push({ id: `semantics:${i}`, template, contexts: semantics }));
  const macros = rich(9, 5);
  MACRO_TEMPLATES.forEach((template, i) => probes.push({ id: `macros:${i}`, template, contexts: macros }));
  const inline = contexts(5, 20).map(ref);
  INLINE_TEMPLATES.forEach((template, i) => probes.push({ id: `inline:${i}`, template, contexts: inline }));
  for (const seed of [1, 2, 3, 4]) {
    const fuzz = new TemplateFuzzer(seed);
    const ctxs = rich(seed, 2);
    for (let i = 0; i < 400; i++) {
      const template = fuzz.template();
      if (parses(template)) probes.push({ id: `fuzz${seed}:${i}`, template, contexts: ctxs });
    }
  }
  return { contexts: all, probes };
}

export function loadProbes(): { file: ProbeFile; expected: Map<string, ProbeOutcome[]> } {
  const file = JSON.parse(readFileSync(PROBES_FILE, 'utf8')) as ProbeFile;
  const rows = JSON.parse(readFileSync(PROBES_EXPECTED_FILE, 'utf8')) as Array<{ id: string; results: ProbeOutcome[] }>;
  return { file, expected: new Map(rows.map((r) => [r.id, r.results])) };
}
