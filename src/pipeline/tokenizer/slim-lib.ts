/**
 * The JS library (@huggingface/tokenizers 0.2.0, pinned) keeps, for as long as its Tokenizer lives,
 * the parsed tokenizer.json (`tokenizer`, and its BPE model's `config`), the merges list (`merges`)
 * and a Map from each merge's JSON text to its rank (`bpe_ranks`). On Qwen3 that is ~585k of the
 * gateway main thread's ~1.07M heap objects (heap snapshot during issue 30's long-prompt phase):
 * every major GC marks them, on V8's helper threads, and a 1,000-arrival burst ran one (concurrent
 * marking: ~15 % of the gateway's CPU in the burst, perf). None of it is read after construction
 * except `bpe_ranks`, by the library's own BPE encode, which the main thread runs only where the
 * fast encoder does not (encode with add_special_tokens, the /tokenize default).
 *
 * With a verified fast encoder its merge table (typed arrays, fast-bpe/pair-table.ts) answers the
 * same question, so the library's ranks are read through it and the rest is let go. The library
 * reads nothing else of these fields after its constructor (dist/tokenizers.mjs: `merges` and
 * `config` in the BPE constructor, `tokenizer` in the Tokenizer constructor; `bpe_ranks.get` in
 * add_node only).
 */
import type { Tokenizer } from '@huggingface/tokenizers';
import type { FastBpeEncoder } from './fast-bpe/encoder.js';

/** `bpe_ranks` as the library reads it: `get(JSON.stringify([left, right]))` → rank or undefined. */
class MergeRanks {
  constructor(
    private readonly ids: ReadonlyMap<string, number>,
    private readonly fast: FastBpeEncoder,
  ) {}

  get(key: string): number | undefined {
    const [left, right] = JSON.parse(key) as [string, string];
    const l = this.ids.get(left);
    const r = l === undefined ? undefined : this.ids.get(right);
    return r === undefined ? undefined : this.fast.mergeRank(l!, r);
  }
}

interface LibBpeModel {
  tokens_to_ids?: unknown;
  bpe_ranks?: unknown;
  merges?: unknown;
  config?: unknown;
}

/**
 * Lets `lib` drop its copies of tokenizer.json's tables, reading merge ranks from `fast` instead.
 * Only for a BPE model whose merges `fast` was built from and verified against (load.ts).
 */
export function slimLibTokenizer(lib: Tokenizer, fast: FastBpeEncoder): void {
  const model = lib.model as unknown as LibBpeModel | null;
  if (!model || !(model.bpe_ranks instanceof Map) || !(model.tokens_to_ids instanceof Map)) return;
  model.bpe_ranks = new MergeRanks(model.tokens_to_ids as Map<string, number>, fast);
  model.merges = undefined;
  model.config = undefined;
  (lib as unknown as { tokenizer: unknown }).tokenizer = undefined;
}
