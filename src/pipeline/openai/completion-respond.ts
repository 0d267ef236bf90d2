/**
 * Text completion responses (request-pipeline §12.3). Choice index = prompt index × n + i; echo
 * puts the prompt text before the first generated text of a choice; a suffix goes last.
 */
import type { TokenLogprob } from '../../engine/types.js';
import type { Decoder } from '../detokenizer.js';
import type { GenEvent } from '../generate.js';
import { collectChoices } from './collect-choices.js';
import { sseErrorFrame } from './errors.js';
import { completionLogprobs } from './logprobs-format.js';
import { streamErrorText } from './respond-error.js';
import { UsageTally } from './usage.js';

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

export async function collectCompletion(events: AsyncIterable<GenEvent>, meta: CompletionMeta): Promise<Record<string, unknown>> {
  const { choices: acc, usage } = await collectChoices(events, meta.echoText.length * meta.n, meta.n);
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

export async function* completionFrames(events: AsyncIterable<GenEvent>, meta: CompletionMeta): AsyncGenerator<string> {
  const head = `{"id":${JSON.stringify(meta.id)},"object":"text_completion","created":${meta.created},"choices":[`;
  const tail = `],"model":${JSON.stringify(meta.model)},"system_fingerprint":"default"}`;
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
  try {
    for await (const ev of events) {
      const i = ev.index;
      if (ev.kind === 'delta') {
        yield frame(i, echoFor(i), ev.text, ev.logprobs, null);
        continue;
      }
      usage.add(Math.floor(i / meta.n), ev.promptTokens, ev.completionTokens, ev.cachedTokens);
      const lead = echoFor(i) + meta.suffix;
      if (lead) yield frame(i, lead, '', null, null);
      yield frame(i, '', '', ev.logprobs, ev.finishReason === 'length' ? 'length' : 'stop');
    }
    if (meta.includeUsage) yield `${head}],"usage":${JSON.stringify(usage.toJSON(true))},"model":${JSON.stringify(meta.model)},"system_fingerprint":"default"}`;
  } catch (err) {
    yield sseErrorFrame(streamErrorText(err));
  }
  yield '[DONE]';
}
