/**
 * Random templates (test/support/template-fuzz.ts), compiled vs interpreted: for every one that
 * parses and compiles, the output or error message must be identical on the semantics context
 * and on random chat contexts. Most must compile, so the comparison covers the compiler.
 */
import { Template } from '@huggingface/jinja';
import { describe, expect, it } from 'vitest';
import { contexts } from '../support/chat-contexts.js';
import { TemplateFuzzer } from '../support/template-fuzz.js';
import { both, pair } from '../support/template-oracle.js';
import { CTX } from '../support/template-semantics.js';

function parses(source: string): boolean {
  try {
    new Template(source);
    return true;
  } catch {
    return false;
  }
}

describe('random templates, compiled vs interpreted', () => {
  it.each([1, 2, 3, 4])('seed %i: 400 templates agree', (seed) => {
    const fuzz = new TemplateFuzzer(seed);
    const ctxs = [CTX, ...contexts(seed, 3).map((c) => ({ ...CTX, ...c }))];
    let compiled = 0;
    let outputs = 0;
    for (let i = 0; i < 400; i++) {
      const source = fuzz.template();
      if (!parses(source)) continue;
      const p = pair(source);
      if (!p.compiled) {
        // Only refusals by design; an internal compiler error would hide here otherwise.
        expect(p.reason, source).toMatch(/^unsupported: /);
        continue;
      }
      compiled++;
      for (const ctx of ctxs) {
        const { expected, actual } = both(p, ctx);
        if (actual && 'fallback' in actual) continue;
        expect(actual, source).toEqual(expected);
        if ('output' in expected) outputs++;
      }
    }
    expect(compiled).toBeGreaterThan(250);
    expect(outputs).toBeGreaterThan(150);
  });
});
