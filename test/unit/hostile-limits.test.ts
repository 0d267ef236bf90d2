/**
 * The pure pieces of the hostile-input limits: the JSON nesting scan, the prompt length bound
 * with a real tokenizer, the open-files limit parse and the derived connection cap.
 */
import { describe, expect, it } from 'vitest';
import { defaultMaxConnections, openFilesLimit } from '../../src/gateway/connection-limits.js';
import { exposureWarning, isLoopbackHost } from '../../src/gateway/exposure-warning.js';
import { refuseSurelyTooLong } from '../../src/pipeline/prompt-length-bound.js';
import { loadTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { MAX_JSON_DEPTH, jsonDepthProblem, tooDeepAt } from '../../src/util/json-depth.js';
import { TINY_MODEL } from '../e2e/support/proc.js';

describe('JSON nesting limit', () => {
  it("127 nested containers pass, the 128th is refused with serde_json's text and position", () => {
    expect(MAX_JSON_DEPTH).toBe(128);
    expect(tooDeepAt('['.repeat(127) + ']'.repeat(127))).toBe(-1);
    expect(tooDeepAt('['.repeat(128) + ']'.repeat(128))).toBe(127);
    expect(jsonDepthProblem('{"a":' + '['.repeat(200))).toBe('recursion limit exceeded at line 1 column 132');
    expect(jsonDepthProblem('{\n "a":\n' + '['.repeat(200))).toBe('recursion limit exceeded at line 3 column 127');
  });

  it('brackets inside strings (escaped quotes included) do not count; siblings do not add up', () => {
    expect(tooDeepAt(JSON.stringify({ s: '['.repeat(1000), t: 'say \\"[[[[\\" ' + '{'.repeat(500) }))).toBe(-1);
    expect(tooDeepAt(JSON.stringify(Array.from({ length: 10_000 }, () => [[1], { a: [2] }])))).toBe(-1);
    // Malformed text is left to JSON.parse.
    expect(tooDeepAt('"unterminated [[[[')).toBe(-1);
  });

  it('scans a 28 MB prompt body quickly', () => {
    const body = JSON.stringify({ messages: [{ role: 'user', content: 'lorem ipsum '.repeat(2_400_000) }] });
    const t = performance.now();
    expect(tooDeepAt(body)).toBe(-1);
    expect(performance.now() - t).toBeLessThan(1500);
  });
});

describe('prompt length bound', () => {
  it('refuses only what surely cannot fit, from the vocabulary’s longest piece', async () => {
    const tok = await loadTokenizer(TINY_MODEL);
    // The tiny tokenizer's longest piece is 13 bytes and it has no composing normalizer.
    const justUnder = 'x'.repeat(13 * 100 - 1);
    expect(() => refuseSurelyTooLong(tok, justUnder, 100)).not.toThrow();
    expect(tok.encode(justUnder, false).length).toBeGreaterThanOrEqual(99);
    expect(() => refuseSurelyTooLong(tok, 'x'.repeat(13 * 100), 100)).toThrow(
      "This model's maximum context length is 100 tokens. However, your request has at least 100 input tokens (1300 bytes of prompt text). Please reduce the length of the input messages.",
    );
    // No limit known: nothing is refused.
    expect(() => refuseSurelyTooLong(tok, 'x'.repeat(100_000), null)).not.toThrow();
  });
});

describe('connection cap and exposure warning', () => {
  it('reads the soft open-files limit from /proc/self/limits text', () => {
    const text = 'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 524288               files     \n';
    expect(openFilesLimit(text)).toBe(1024);
    expect(openFilesLimit('Max open files            unlimited            unlimited            files')).toBe(Number.MAX_SAFE_INTEGER);
    expect(openFilesLimit('nothing')).toBeNull();
    expect(typeof openFilesLimit()).toBe('number');
  });

  it('keeps max(64, 20 %) of the limit and the side listeners’ 32 for everything else', () => {
    expect(defaultMaxConnections(400)).toBe(288);
    expect(defaultMaxConnections(1024)).toBe(1024 - 205 - 32);
    expect(defaultMaxConnections(1_048_576)).toBe(1_048_576 - 209_716 - 32);
    expect(defaultMaxConnections(100)).toBe(16);
    expect(defaultMaxConnections(null)).toBe(10_000);
  });

  it('warns for non-loopback hosts without an API key only', () => {
    for (const h of ['127.0.0.1', '127.8.9.1', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.5', 'example.com']) expect(isLoopbackHost(h)).toBe(false);
    expect(exposureWarning('0.0.0.0', null)).toMatch(/^SECURITY: listening on 0\.0\.0\.0 without --api-key/);
    expect(exposureWarning('0.0.0.0', 'k')).toBeNull();
    expect(exposureWarning('127.0.0.1', null)).toBeNull();
  });
});
