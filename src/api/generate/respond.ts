/**
 * /generate answers (request-pipeline §3.5): a JSON array with one entry per choice, or SSE with a
 * chunk per engine step carrying the cumulative text and that step's ids, a final chunk per choice
 * with its finish reason, then `[DONE]`. Stop strings apply in both (SMG skips them when streaming).
 *
 * Incremental streaming (SGLang's --incremental-streaming-output, `tokenizer_manager` output
 * processor): each chunk, the final one included, carries only the text decoded since the previous
 * chunk. The cumulative default re-sends the whole text every step, so an N-token stream costs
 * O(N²) bytes and CPU; incremental keeps each chunk's cost flat.
 */
import type { TokenLogprob } from '../../engine/types.js';
import type { Collected } from '../../pipeline/collect.js';
import { streamErrorText } from '../../pipeline/errors.js';
import type { FinishKind } from '../../pipeline/events.js';
import { type SseEncoder, dataFrame } from '../sse.js';
import { sseErrorFrame } from '../openai/errors.js';

export interface GenerateMeta {
  /** Response id; choice i of n > 1 reports `<id>-<i>`. */
  id: string;
  n: number;
  returnLogprob: boolean;
  /** performance.now() when the request arrived, for `e2e_latency`. */
  startedAt: number;
  /** Stream each step's text rather than the text so far. */
  incremental: boolean;
}

const choiceId = (meta: GenerateMeta, i: number) => (meta.n > 1 ? `${meta.id}-${i}` : meta.id);

/** SGLang's finish_reason object. */
function finishReason(finish: FinishKind | null, matched: string | number | null, completionTokens: number): Record<string, unknown> {
  switch (finish) {
    case 'length':
      return { type: 'length', length: completionTokens };
    case 'stop':
    case 'tool_calls':
      return matched === null ? { type: 'stop' } : { type: 'stop', matched };
    default:
      return { type: 'abort' };
  }
}

interface Counts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

function metaInfo(meta: GenerateMeta, i: number, counts: Counts, finish: Record<string, unknown> | null, logprobs: TokenLogprob[] | null) {
  const info: Record<string, unknown> = {
    id: choiceId(meta, i),
    finish_reason: finish,
    prompt_tokens: counts.promptTokens,
    weight_version: 'default',
    completion_tokens: counts.completionTokens,
    cached_tokens: counts.cachedTokens,
    reasoning_tokens: 0,
  };
  if (finish !== null) info.e2e_latency = (performance.now() - meta.startedAt) / 1000;
  if (finish !== null && 'matched' in finish) info.matched_stop = finish.matched;
  // SGLang's [logprob, token_id, text] triples; text is null without return_text_in_logprobs.
  if (meta.returnLogprob && logprobs) info.output_token_logprobs = logprobs.map((lp) => [lp.logprob, lp.tokenId, null]);
  return info;
}

export function generateJson({ choices }: Collected, meta: GenerateMeta): unknown[] {
  return choices.map((c, i) => ({
    text: c.text,
    output_ids: c.ids,
    meta_info: metaInfo(meta, i, c, finishReason(c.finish, c.matched, c.completionTokens), c.logprobs),
  }));
}

export function generateSse(meta: GenerateMeta): SseEncoder {
  const text: string[] = Array.from({ length: meta.n }, () => '');
  const ids: number[][] = Array.from({ length: meta.n }, () => []);
  const logprobs: TokenLogprob[][] = Array.from({ length: meta.n }, () => []);
  const counts: Counts[] = Array.from({ length: meta.n }, () => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 }));
  const chunk = (i: number, finish: Record<string, unknown> | null) => {
    const payload = { text: text[i], output_ids: ids[i], meta_info: metaInfo(meta, i, counts[i], finish, logprobs[i]), index: i };
    if (meta.incremental) text[i] = '';
    ids[i] = [];
    logprobs[i] = [];
    return dataFrame(JSON.stringify(payload));
  };
  return {
    event(ev) {
      const i = ev.index;
      switch (ev.kind) {
        case 'tokens':
          for (const id of ev.ids) ids[i].push(id);
          counts[i].completionTokens += ev.ids.length;
          return '';
        case 'text':
          text[i] += ev.text;
          if (ev.logprobs) for (const lp of ev.logprobs) logprobs[i].push(lp);
          return chunk(i, null);
        case 'end':
          counts[i] = { promptTokens: ev.promptTokens, completionTokens: ev.completionTokens, cachedTokens: ev.cachedTokens };
          if (ev.logprobs) for (const lp of ev.logprobs) logprobs[i].push(lp);
          return chunk(i, finishReason(ev.finishReason, ev.matchedStop, ev.completionTokens));
        default:
          return '';
      }
    },
    end: () => dataFrame('[DONE]'),
    error: (err) => dataFrame(sseErrorFrame(streamErrorText(err))) + dataFrame('[DONE]'),
  };
}
