import { beforeAll, describe, expect, it } from 'vitest';
import { harmonyStopTokenIds, isStopStringTarget } from '../../src/pipeline/harmony/stops.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { ensureTokenizerFixture } from '../support/tokenizer-fixtures.js';

describe('Harmony stops', () => {
  let tok: LoadedTokenizer;
  beforeAll(async () => {
    tok = await loadTokenizer(ensureTokenizerFixture('gptoss'));
  }, 120_000);

  it('looks up <|return|> and <|call|> in the gpt-oss tokenizer, not <|end|>', () => {
    // Ids from the special-token table of openai/harmony docs/format.md.
    expect(harmonyStopTokenIds(tok)).toEqual([200002, 200012]);
    expect(harmonyStopTokenIds(tok)).not.toContain(tok.tokenToId('<|end|>'));
  });

  it('refuses a tokenizer without Harmony tokens', () => {
    expect(() => harmonyStopTokenIds({ tokenToId: (t) => (t === '<|return|>' ? 1 : undefined) })).toThrow(/no <\|call\|> token/);
  });

  it('applies user stop strings to final-channel text only', () => {
    expect(isStopStringTarget({ channel: 'final' })).toBe(true);
    expect(isStopStringTarget({ channel: 'analysis' })).toBe(false);
    expect(isStopStringTarget({ channel: 'commentary' })).toBe(false);
    expect(isStopStringTarget({ channel: 'final', recipient: 'functions.f' })).toBe(false);
    expect(isStopStringTarget({})).toBe(false);
  });
});
