/**
 * Every token-format tool parser on fixtures in its model's output format: the non-streaming
 * result, and streaming over many splits (a cut at every position, every pair of cuts for short
 * texts, one code point per delta, random splits) folding to exactly that result.
 */
import { describe, expect, test } from 'vitest';
import type { ToolParserSpec } from '../../src/pipeline/parsers/tools/types.js';
import { glm45MoeToolParser } from '../../src/pipeline/parsers/tools/glm45_moe.js';
import { glm47MoeToolParser } from '../../src/pipeline/parsers/tools/glm47_moe.js';
import { kimiK2ToolParser } from '../../src/pipeline/parsers/tools/kimik2.js';
import { kimiK3ToolParser } from '../../src/pipeline/parsers/tools/kimi_k3.js';
import { minimaxM2ToolParser } from '../../src/pipeline/parsers/tools/minimax_m2.js';
import { step3ToolParser } from '../../src/pipeline/parsers/tools/step3.js';
import { cohereToolParser } from '../../src/pipeline/parsers/tools/cohere.js';
import { sarashinaToolParser } from '../../src/pipeline/parsers/tools/sarashina.js';
import { inklingToolParser } from '../../src/pipeline/parsers/tools/inkling.js';
import { TOKEN_FORMAT_TOOLS, type ToolFixture } from '../fixtures/tools/token-format-tools.js';
import { GLM45_FIXTURES, GLM45_MALFORMED } from '../fixtures/tools/glm45_moe.js';
import { GLM47_FIXTURES, GLM47_MALFORMED } from '../fixtures/tools/glm47_moe.js';
import { KIMIK2_FIXTURES, KIMIK2_MALFORMED } from '../fixtures/tools/kimik2.js';
import { KIMI_K3_FIXTURES, KIMI_K3_MALFORMED } from '../fixtures/tools/kimi_k3.js';
import { MINIMAX_M2_FIXTURES, MINIMAX_M2_MALFORMED } from '../fixtures/tools/minimax_m2.js';
import { STEP3_FIXTURES, STEP3_MALFORMED } from '../fixtures/tools/step3.js';
import { COHERE_FIXTURES, COHERE_MALFORMED } from '../fixtures/tools/cohere.js';
import { SARASHINA_FIXTURES, SARASHINA_MALFORMED } from '../fixtures/tools/sarashina.js';
import { INKLING_FIXTURES, INKLING_MALFORMED } from '../fixtures/tools/inkling.js';
import { expectStreamMatchesParse, foldParse, splitsFor } from './parsers-tools-tokens-harness.js';

const SUITES: Array<[ToolParserSpec, ToolFixture[], ToolFixture[]]> = [
  [glm45MoeToolParser, GLM45_FIXTURES, GLM45_MALFORMED],
  [glm47MoeToolParser, GLM47_FIXTURES, GLM47_MALFORMED],
  [kimiK2ToolParser, KIMIK2_FIXTURES, KIMIK2_MALFORMED],
  [kimiK3ToolParser, KIMI_K3_FIXTURES, KIMI_K3_MALFORMED],
  [minimaxM2ToolParser, MINIMAX_M2_FIXTURES, MINIMAX_M2_MALFORMED],
  [step3ToolParser, STEP3_FIXTURES, STEP3_MALFORMED],
  [cohereToolParser, COHERE_FIXTURES, COHERE_MALFORMED],
  [sarashinaToolParser, SARASHINA_FIXTURES, SARASHINA_MALFORMED],
  [inklingToolParser, INKLING_FIXTURES, INKLING_MALFORMED],
];

for (const [spec, fixtures, malformed] of SUITES) {
  describe(spec.name, () => {
    for (const [kind, list] of [['fixture', fixtures], ['malformed', malformed]] as const) {
      for (const fx of list) {
        test(`${kind}: ${fx.name}`, () => {
          const got = foldParse(spec, TOKEN_FORMAT_TOOLS, fx.text);
          expect({ text: got.text, calls: got.calls }).toEqual(fx.expected);
          const n = expectStreamMatchesParse(spec, TOKEN_FORMAT_TOOLS, fx.text, splitsFor(fx.text));
          expect(n).toBeGreaterThan(fx.text.length);
        });
      }
    }

    test('without declared tools every fixture is text', () => {
      for (const fx of [...fixtures, ...malformed]) {
        const got = foldParse(spec, [], fx.text);
        expect(got.calls).toEqual([]);
        expect(got.text.length).toBeGreaterThan(0);
      }
    });
  });
}
