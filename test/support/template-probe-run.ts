/**
 * Runs the probe corpus through the compiled renderer and compares with jinja2's outcomes
 * (template-probes.ts). Errors compare as errors (the texts differ by design); probes jinja2
 * cannot parse or whose output holds an object address are skipped.
 */
import { Template } from '@huggingface/jinja';
import { compileTemplate } from '../../src/pipeline/chat-prompt/template-compiler/compile.js';
import { atFrozenNow } from './template-jinja2.js';
import { loadProbes, type ProbeOutcome } from './template-probes.js';

export interface ProbeMismatch {
  readonly id: string;
  readonly template: string;
  readonly context: number;
  readonly expected: ProbeOutcome;
  readonly actual: { text?: string; error?: string };
}

export interface ProbeRun {
  readonly renders: number;
  readonly identical: number;
  readonly bothError: number;
  readonly skipped: number;
  readonly refused: Array<{ id: string; reason: string }>;
  readonly mismatches: ProbeMismatch[];
}

export function runProbes(): ProbeRun {
  const { file, expected } = loadProbes();
  const run = { renders: 0, identical: 0, bothError: 0, skipped: 0, refused: [] as Array<{ id: string; reason: string }>, mismatches: [] as ProbeMismatch[] };
  atFrozenNow(() => {
    for (const probe of file.probes) {
      const outcomes = expected.get(probe.id);
      if (!outcomes) throw new Error(`no jinja2 outcome for probe ${probe.id}: regenerate the fixtures`);
      if (outcomes.every((o) => 'syntax' in o)) {
        run.skipped += outcomes.length;
        continue;
      }
      const compiled = compileTemplate(new Template(probe.template).parsed);
      if (!compiled.render) {
        run.refused.push({ id: probe.id, reason: compiled.reason });
        continue;
      }
      probe.contexts.forEach((ci, k) => {
        const want = outcomes[k];
        if ('nondeterministic' in want || 'syntax' in want) {
          run.skipped++;
          return;
        }
        run.renders++;
        let actual: { text?: string; error?: string };
        try {
          actual = { text: compiled.render!(file.contexts[ci]) };
        } catch (err) {
          actual = { error: (err as Error).message };
        }
        if ('error' in want && actual.error !== undefined) run.bothError++;
        else if ('text' in want && actual.text === want.text) run.identical++;
        else run.mismatches.push({ id: probe.id, template: probe.template, context: ci, expected: want, actual });
      });
    }
  });
  return run;
}
