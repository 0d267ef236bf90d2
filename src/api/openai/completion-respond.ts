/**
 * Text completion responses (request-pipeline §12.3). Choice index = prompt index × n + i; echo
 * puts the prompt text before the first generated text of a choice; a suffix goes last.
 */
import type { TokenLogprob } from '../../engine/types.js';
import type { Collected } from '../../pipeline/collect.js';
import type { Decoder } from '../../pipeline/detokenizer.js';
import { streamErrorText } from '../../pipeline/errors.js';
import type { GenEvent } from '../../pipeline/events.js';
import { UsageTally } from '../../pipeline/usage.js';
import { type SseEncoder, dataFrame } from '../sse.js';
import { sseErrorFrame } from './errors.js';
import { completionLogprobs } from './logprobs-format.js';

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
  /** Choices per prompt. */
  n: number;
  /** Echoed prompt text per prompt ('' when echo is off). */
  echoText: string[];
  suffix: string;
  tokenizer: Decoder;
  logprobs: number | null;
  includeUsage: boolean;
}

export function completionJson({ choices: acc, usage }: Collected, meta: CompletionMeta): Record<string, unknown> {
  const choices = acc.map((c, index) => {
    const echo = meta.echoText[Math.floor(index / meta.n)];
    const choice: Record<string, unknown> = { text: echo + c.text + meta.suffix, index };
    if (meta.logprobs !== null) choice.logprobs = completionLogprobs(meta.tokenizer, c.logprobs, meta.logprobs, echo.length);
    choice.finish_reason = c.finish ?? 'abort';
    if (c.matched !== null) choice.matched_stop = c.matched;
    return choice;
  });
  return {
    id: meta.id,
    object: 'text_completion',
    created: meta.created,
    model: meta.model,
    choices,
    usage: usage.toJSON(false),
    system_fingerprint: 'default',
  };
}

/** The SSE encoder of a streaming text completion. */
export function completionSse(meta: CompletionMeta): SseEncoder {
  const head = `data: {"id":${JSON.stringify(meta.id)},"object":"text_completion","created":${meta.created},"choices":[`;
  const tail = `],"model":${JSON.stringify(meta.model)},"system_fingerprint":"default"}\n\n`;
  const echoed = new Uint8Array(meta.echoText.length * meta.n);
  const offsets = new Float64Array(meta.echoText.length * meta.n);
  const usage = new UsageTally();
  // `lead` is text before this frame's tokens (the echoed prompt): token offsets start after it.
  const frame = (i: number, lead: string, text: string, lp: TokenLogprob[] | null, finish: string | null) => {
    offsets[i] += lead.length;
    let logprobs = '';
    if (meta.logprobs !== null) {
      const shaped = completionLogprobs(meta.tokenizer, lp ?? [], meta.logprobs, offsets[i]);
      logprobs = `,"logprobs":${JSON.stringify(shaped)}`;
    }
    offsets[i] += text.length;
    const fin = finish === null ? 'null' : `"${finish}"`;
    return `${head}{"text":${JSON.stringify(lead + text)},"index":${i}${logprobs},"finish_reason":${fin}}${tail}`;
  };
  const echoFor = (i: number) => {
    if (echoed[i]) return '';
    echoed[i] = 1;
    return meta.echoText[Math.floor(i / meta.n)];
  };
  return {
    event(ev) {
      const i = ev.index;
      if (ev.kind === 'text') return frame(i, echoFor(i), ev.text, ev.logprobs, null);
      if (ev.kind !== 'end') return '';
      usage.add(Math.floor(i / meta.n), ev.promptTokens, ev.completionTokens, ev.cachedTokens);
      const lead = echoFor(i) + meta.suffix;
      const pre = lead ? frame(i, lead, '', null, null) : '';
      return pre + frame(i, '', '', ev.logprobs, ev.finishReason === 'length' ? 'length' : 'stop');
    },
    end() {
      const usageChunk = meta.includeUsage
        ? `${head}],"usage":${JSON.stringify(usage.toJSON(true))},"model":${JSON.stringify(meta.model)},"system_fingerprint":"default"}\n\n`
        : '';
      return usageChunk + dataFrame('[DONE]');
    },
    error(err) {
      return dataFrame(sseErrorFrame(streamErrorText(err))) + dataFrame('[DONE]');
    },
  };
}
