import { readFileSync } from 'node:fs';
import { rng } from './test/fixtures/pipeline-random.js';
const words = [...new Set(readFileSync('README.md', 'utf8').match(/[A-Za-z]{2,}/g))];
const rand = rng(3);
const prose = () => { let s = ''; while (s.length < 9000) { s += words[Math.floor(rand() * words.length)] + (rand() < 0.1 ? ', ' : ' '); } return s; };
for (let k = 0; k < 3; k++) {
const texts = Array.from({ length: 400 }, prose);
let t0 = performance.now();
for (const t of texts) /x/.test(t);
const tf = performance.now() - t0;
t0 = performance.now();
for (const t of texts) /x/.test(t);
const tf2 = performance.now() - t0;
const texts2 = Array.from({ length: 400 }, prose);
t0 = performance.now();
for (const t of texts2) t.indexOf('<');
const ti = performance.now() - t0;
console.log('first regex (flatten)', (tf * 1000 / 400).toFixed(1), 'µs/text; second', (tf2 * 1000 / 400).toFixed(1), 'indexOf first', (ti*1000/400).toFixed(1));
}
