/**
 * Chat completion responses (request-pipeline §12.1/§12.2): one JSON object, or SSE chunks with a
 * role chunk first per choice, content chunks, one finish chunk per choice, an optional usage chunk.
 */
import type { Decoder } from '../detokenizer.js';
import type { GenEvent } from '../generate.js';
import { collectChoices } from './collect-choices.js';
import { chatLogprobs } from './logprobs-format.js';
import { streamErrorText } from './respond-error.js';
import { sseErrorFrame } from './errors.js';
import { NamedToolStream, type ToolCallIdFn, parseForcedToolCalls, toolFinish } from './tool-calls.js';
import type { ToolCallShape } from './tool-choice.js';
import { UsageTally } from './usage.js';

export interface ChatMeta {
  id: string;
  created: number;
  model: string;
  n: number;
  tokenizer: Decoder;
  /** Logprob candidates to show per token, or null when logprobs were not requested. */
  topLogprobs: number | null;
  includeUsage: boolean;
  /** Set when a forced tool call was constrained by JSON schema: the text is read as tool calls. */
  forcedTool?: { shape: ToolCallShape; idFor: ToolCallIdFn } | null;
}

export async function collectChat(events: AsyncIterable<GenEvent>, meta: ChatMeta): Promise<Record<string, unknown>> {
  const { choices: acc, usage } = await collectChoices(events, meta.n, meta.n);
  const choices = acc.map((c, index) => {
    const message: Record<string, unknown> = { role: 'assistant' };
    const forced = meta.forcedTool;
    const parsed = forced ? parseForcedToolCalls(c.text, forced.shape, forced.idFor) : { calls: [], content: c.text };
    if (parsed.content !== null && parsed.content.trim().length > 0) message.content = parsed.content;
    if (parsed.calls.length > 0) message.tool_calls = parsed.calls;
    message.reasoning_content = null;
    const choice: Record<string, unknown> = { index, message };
    if (meta.topLogprobs !== null) {
      choice.logprobs = { content: chatLogprobs(meta.tokenizer, c.logprobs, meta.topLogprobs) };
    }
    // A choice cut short by a client disconnect never reaches here; an unfinished one is an abort.
    choice.finish_reason = toolFinish(c.finish ?? 'abort', parsed.calls.length > 0);
    if (c.matched !== null) choice.matched_stop = c.matched;
    return choice;
  });
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices,
    usage: usage.toJSON(true),
    system_fingerprint: 'default',
  };
}

/** SSE `data:` payloads for a streaming chat completion, ending with `[DONE]`. */
export async function* chatFrames(events: AsyncIterable<GenEvent>, meta: ChatMeta): AsyncGenerator<string> {
  // Every chunk shares the envelope; only the choice varies, so build the prefix once.
  const head = `{"id":${JSON.stringify(meta.id)},"object":"chat.completion.chunk","created":${meta.created},"model":${JSON.stringify(meta.model)},"system_fingerprint":"default","choices":[`;
  const roleSent = new Uint8Array(meta.n);
  const usage = new UsageTally();
  // Only a named function streams as a tool call; a forced array goes out as plain content.
  let named: NamedToolStream[] | null = null;
  const forced = meta.forcedTool;
  if (forced && forced.shape.kind === 'function') {
    const { name } = forced.shape;
    named = Array.from({ length: meta.n }, () => new NamedToolStream(name, forced.idFor));
  }
  const role = (i: number) =>
    `${head}{"index":${i},"delta":{"role":"assistant","reasoning_content":null},"logprobs":null,"finish_reason":null}]}`;
  try {
    for await (const ev of events) {
      const i = ev.index;
      if (!roleSent[i]) {
        roleSent[i] = 1;
        yield role(i);
      }
      if (ev.kind === 'delta' && named) {
        for (const d of named[i].deltas(ev.text)) {
          yield `${head}{"index":${i},"delta":${d},"logprobs":null,"finish_reason":null}]}`;
        }
      } else if (ev.kind === 'delta') {
        const lp =
          meta.topLogprobs !== null && ev.logprobs
            ? JSON.stringify({ content: chatLogprobs(meta.tokenizer, ev.logprobs, meta.topLogprobs) })
            : 'null';
        yield `${head}{"index":${i},"delta":{"role":"assistant","content":${JSON.stringify(ev.text)},"reasoning_content":null},"logprobs":${lp},"finish_reason":null}]}`;
      } else {
        usage.add(0, ev.promptTokens, ev.completionTokens, ev.cachedTokens);
        const matched = ev.matchedStop === null ? '' : `,"matched_stop":${JSON.stringify(ev.matchedStop)}`;
        yield `${head}{"index":${i},"delta":{"reasoning_content":null},"logprobs":null,"finish_reason":"${toolFinish(ev.finishReason, named?.[i].started ?? false)}"${matched}}]}`;
      }
    }
    if (meta.includeUsage) {
      yield `${head}],"usage":${JSON.stringify(usage.toJSON(true))}}`;
    }
  } catch (err) {
    yield sseErrorFrame(streamErrorText(err));
  }
  yield '[DONE]';
}
