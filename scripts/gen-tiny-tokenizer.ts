/**
 * Writes test/fixtures/tiny-tokenizer/: a hand-made byte-level BPE tokenizer (ecosystem.md §2.2)
 * small enough to load in milliseconds, so unit tests of detokenization, stop handling and
 * template plumbing need neither the hub nor an 11 MB real tokenizer.
 *
 * Design choices that the tests rely on:
 *  - id of a single byte b is b itself, so tests can spell byte tokens directly;
 *  - a few merges create tokens that span characters ("Ġthe") and tokens that hold only part of a
 *    character (F0 9F = first half of most emoji, E4 B8 = first two bytes of 中), so UTF-8 splits
 *    happen inside a token as well as between tokens;
 *  - clean_up_tokenization_spaces is true in the config, to prove the loader overrides it.
 *
 * Run: npx tsx scripts/gen-tiny-tokenizer.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** GPT-2's reversible byte → printable-character table. */
function byteToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const table: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    table[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return table;
}

const bytes = byteToUnicode();
const sym = (s: string): string =>
  [...Buffer.from(s, 'utf8')].map((b) => bytes[b]).join('');

const vocab: Record<string, number> = {};
bytes.forEach((ch, b) => (vocab[ch] = b));

// Each merge is [left, right] in byte-alphabet symbols; the merged token gets the next id.
const mergePairs: Array<[string, string]> = [
  [sym(' '), sym('t')],
  [sym('h'), sym('e')],
  [sym(' t'), sym('he')],
  [sym('l'), sym('l')],
  [sym('E'), sym('N')],
  [sym('EN'), sym('D')],
  [sym('\n'), sym('\n')],
  [bytes[0xf0], bytes[0x9f]],
  [bytes[0xe4], bytes[0xb8]],
  [sym('H'), sym('i')],
];
let nextId = 256;
for (const [a, b] of mergePairs) vocab[a + b] = nextId++;

const added: Array<[string, boolean]> = [
  ['<|endoftext|>', true],
  ['<|im_start|>', true],
  ['<|im_end|>', true],
  ['<think>', false],
  ['</think>', false],
  ['<tool_call>', false],
  ['</tool_call>', false],
];
const addedTokens = added.map(([content, special]) => ({
  id: nextId++,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special,
}));
const idOf = (content: string): number => addedTokens.find((t) => t.content === content)!.id;

const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true };
const tokenizer = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: addedTokens,
  normalizer: null,
  pre_tokenizer: byteLevel,
  post_processor: { ...byteLevel, use_regex: false },
  decoder: { ...byteLevel, use_regex: false },
  model: {
    type: 'BPE',
    dropout: null,
    unk_token: null,
    continuing_subword_prefix: null,
    end_of_word_suffix: null,
    fuse_unk: false,
    byte_fallback: false,
    ignore_merges: false,
    vocab,
    merges: mergePairs,
  },
};

// ChatML with tools, tool calls, reasoning and the Qwen3-style enable_thinking switch, kept short.
const chatTemplate = [
  "{%- if tools %}{{- '<|im_start|>system\\n' }}",
  "{%- if messages[0].role == 'system' %}{{- messages[0].content + '\\n\\n' }}{%- endif %}",
  "{{- '# Tools\\n' }}{%- for tool in tools %}{{- tool | tojson }}{{- '\\n' }}{%- endfor %}{{- '<|im_end|>\\n' }}",
  "{%- elif messages[0].role == 'system' %}{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}{%- endif %}",
  '{%- for message in messages %}',
  "{%- if message.role == 'system' and loop.first %}",
  "{%- elif message.role == 'assistant' %}{{- '<|im_start|>assistant\\n' + message.content }}",
  '{%- if message.tool_calls %}{%- for tc in message.tool_calls %}',
  "{{- '<tool_call>' + (tc.function | tojson) + '</tool_call>' }}",
  "{%- endfor %}{%- endif %}{{- '<|im_end|>\\n' }}",
  "{%- elif message.role == 'tool' %}{{- '<|im_start|>tool\\n' + message.content + '<|im_end|>\\n' }}",
  "{%- else %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}",
  '{%- endif %}{%- endfor %}',
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}",
  "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}",
  '{%- endif %}',
].join('\n');

const tokenizerConfig = {
  add_bos_token: false,
  bos_token: null,
  eos_token: '<|im_end|>',
  pad_token: '<|endoftext|>',
  unk_token: null,
  clean_up_tokenization_spaces: true,
  model_max_length: 2048,
  tokenizer_class: 'PreTrainedTokenizerFast',
  additional_special_tokens: ['<|im_start|>', '<|im_end|>'],
  chat_template: chatTemplate,
};

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'tiny-tokenizer');
mkdirSync(outDir, { recursive: true });
const write = (name: string, value: unknown): void =>
  writeFileSync(join(outDir, name), JSON.stringify(value, null, 1) + '\n');
write('tokenizer.json', tokenizer);
write('tokenizer_config.json', tokenizerConfig);
write('config.json', {
  architectures: ['TinyForCausalLM'],
  eos_token_id: idOf('<|im_end|>'),
  max_position_embeddings: 4096,
});
write('generation_config.json', { eos_token_id: [idOf('<|endoftext|>'), idOf('<|im_end|>')] });
console.log(`wrote ${outDir}`);
