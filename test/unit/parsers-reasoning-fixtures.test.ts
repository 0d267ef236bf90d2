/**
 * Real model output shapes for every family: the non-stream separation, and the same result from
 * many random splits of the output into streamed deltas (plus one delta per code point and the
 * whole text in one delta).
 */
import { describe, expect, it } from 'vitest';
import { REASONING_PARSERS } from '../../src/pipeline/parsers/reasoning/registry.js';
import { randomSplits } from '../support/splits.js';
import { firstSplitMismatch, parsed } from '../fixtures/reasoning/harness.js';
import { MODEL_OUTPUTS } from '../fixtures/reasoning/outputs.js';

describe('reasoning parsers on real output shapes', () => {
  for (const f of MODEL_OUTPUTS) {
    describe(f.name, () => {
      const spec = REASONING_PARSERS.get(f.parser);
      if (spec === undefined) throw new Error(`no parser ${f.parser}`);

      it('separates reasoning from content (non-stream)', () => {
        expect(parsed(spec, f.output, f.opts)).toEqual({ reasoning: f.reasoning, text: f.text });
      });

      it('streams to the same result for every tried split', () => {
        expect(firstSplitMismatch(spec, f.output, f.opts, randomSplits(f.output, 300, f.output.length))).toBeNull();
      });
    });
  }

  it('covers every registered parser', () => {
    const covered = new Set(MODEL_OUTPUTS.map((f) => f.parser));
    expect([...REASONING_PARSERS.keys()].filter((n) => !covered.has(n))).toEqual([]);
  });
});
