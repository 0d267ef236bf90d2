/**
 * Cost of the cache-aware policy's approximate prefix index per request (it runs on the event
 * loop for every routed prompt): block chain + match + insert of 2k-token prompts, while the
 * index still has room and once it is full and every insert evicts. The ratio shows whether
 * eviction stays proportional to the blocks inserted (it once cost 20x more than an insert).
 *
 *   npx tsx scripts/prefix-index-bench.ts [--tokens 2048] [--prompts 2000]
 */
import { parseArgs } from 'node:util';
import { ApproxPrefixIndex, blockChain } from '../src/workers/policies/prefix-index.js';

const { values } = parseArgs({ options: { tokens: { type: 'string', default: '2048' }, prompts: { type: 'string', default: '2000' } } });
const tokens = Number(values.tokens);
const count = Number(values.prompts);
const prompts = Array.from({ length: count }, (_, n) => Array.from({ length: tokens }, (_, i) => (i * 7919 + n * 104729) % 150_000));

function perPrompt(index: ApproxPrefixIndex, rounds: number): number {
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const p of prompts) {
      const chain = blockChain(p);
      index.matchedTokens('w', chain);
      index.insert('w', chain);
    }
  }
  return ((performance.now() - t0) * 1000) / (rounds * prompts.length);
}

const blocksPerPrompt = Math.ceil(tokens / 16);
// Room for every block of every round: no eviction.
const roomy = new ApproxPrefixIndex(blocksPerPrompt * count * 4);
perPrompt(roomy, 1); // JIT warm-up
const below = perPrompt(new ApproxPrefixIndex(blocksPerPrompt * count * 4), 3);
// A quarter of one round's blocks: full after the first prompts, then every insert evicts.
const full = new ApproxPrefixIndex(Math.floor((blocksPerPrompt * count) / 4));
const atCapacity = perPrompt(full, 3);
console.log(`prefix index, ${tokens}-token prompts (${blocksPerPrompt} blocks each), ${count} distinct prompts x 3 rounds`);
console.log(`  below capacity:  ${below.toFixed(1)} µs per prompt`);
console.log(`  at capacity:     ${atCapacity.toFixed(1)} µs per prompt (every insert evicts as many blocks)`);
console.log(`  at ÷ below:      ${(atCapacity / below).toFixed(2)}x`);
