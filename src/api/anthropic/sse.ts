/**
 * Streaming Messages (request-pipeline §3.3): `event: <type>\ndata: <json>\n\n` frames —
 * `message_start`, then content blocks (`content_block_start` / `content_block_delta` /
 * `content_block_stop`, indexed in order of appearance, one open at a time), `message_delta` with
 * the stop reason and usage, `message_stop`. No `[DONE]`. The official SDK's accumulator
 * (`messages.stream()`) pushes a block per `content_block_start` and addresses deltas by index, so
 * indices are dense and every block is closed before the next opens.
 *
 * Whitespace-only text that would open a text block is held until real text follows and dropped
 * otherwise, so the streamed message has the same blocks as the non-streaming one (§11.4). A thinking
 * block ends with a `signature_delta` (as Anthropic's do, right before its `content_block_stop`),
 * the same signature the non-streaming form gives (thinking-signature.ts). `message_start` carries
 * the prompt's real `input_tokens` (LangChain reads its input usage from there).
 */
import { streamErrorText } from '../../pipeline/errors.js';
import type { GenEvent } from '../../pipeline/events.js';
import type { SseEncoder } from '../sse.js';
import { anthropicSseErrorFrame } from './errors.js';
import { type MessagesMeta, messagesUsage, stopReason, toolUseId } from './message-shape.js';
import { ThinkingSignature } from './thinking-signature.js';

const frame = (type: string, data: string): string => `event: ${type}\ndata: ${data}\n\n`;

type Open = 'none' | 'thinking' | 'text' | 'tool';

export function messagesSse(meta: MessagesMeta): SseEncoder {
  let open: Open = 'none';
  /** Index of the open block; the next block gets index + 1. */
  let index = -1;
  /** Pipeline tool index of the open tool_use block. */
  let openTool = -1;
  let heldSpace = '';
  let toolCalls = false;
  let finished = false;
  /** The open thinking block's signature, fed as its text streams. */
  let signature: ThinkingSignature | null = null;

  const delta = (body: string) => frame('content_block_delta', `{"type":"content_block_delta","index":${index},"delta":${body}}`);

  function close(): string {
    heldSpace = '';
    if (open === 'none') return '';
    let signed = '';
    if (open === 'thinking' && signature) {
      signed = delta(`{"type":"signature_delta","signature":${JSON.stringify(signature.digest())}}`);
      signature = null;
    }
    open = 'none';
    return signed + frame('content_block_stop', `{"type":"content_block_stop","index":${index}}`);
  }

  function begin(kind: Open, block: string): string {
    const out = close();
    open = kind;
    index++;
    return out + frame('content_block_start', `{"type":"content_block_start","index":${index},"content_block":${block}}`);
  }

  function finish(reason: ReturnType<typeof stopReason>, matched: string | number | null, input: number, output: number): string {
    finished = true;
    const stopSequence = reason === 'stop_sequence' ? JSON.stringify(matched) : 'null';
    const usage = JSON.stringify({ output_tokens: output, ...messagesUsage(input, output) });
    return (
      close() +
      frame('message_delta', `{"type":"message_delta","delta":{"stop_reason":"${reason}","stop_sequence":${stopSequence}},"usage":${usage}}`) +
      frame('message_stop', '{"type":"message_stop"}')
    );
  }

  return {
    start() {
      const message = {
        id: meta.id,
        type: 'message',
        role: 'assistant',
        content: [],
        model: meta.model,
        stop_reason: null,
        stop_sequence: null,
        usage: messagesUsage(meta.promptTokens, 0),
      };
      return frame('message_start', JSON.stringify({ type: 'message_start', message }));
    },
    event(ev: GenEvent): string {
      if (finished) return '';
      switch (ev.kind) {
        case 'tokens':
          // Raw step ids are for /generate; Messages shows only text.
          return '';
        case 'reasoning': {
          let head = '';
          if (open !== 'thinking') {
            head = begin('thinking', '{"type":"thinking","thinking":"","signature":""}');
            signature = new ThinkingSignature();
          }
          signature?.add(ev.text);
          return head + delta(`{"type":"thinking_delta","thinking":${JSON.stringify(ev.text)}}`);
        }
        case 'text': {
          if (open === 'text') return delta(`{"type":"text_delta","text":${JSON.stringify(ev.text)}}`);
          if (ev.text.trim().length === 0) {
            heldSpace += ev.text;
            return '';
          }
          const text = heldSpace + ev.text;
          const head = begin('text', '{"type":"text","text":""}');
          return head + delta(`{"type":"text_delta","text":${JSON.stringify(text)}}`);
        }
        case 'tool_start': {
          toolCalls = true;
          const block = JSON.stringify({ type: 'tool_use', id: toolUseId(ev.id), name: ev.name, input: {} });
          const head = begin('tool', block);
          openTool = ev.tool;
          return head;
        }
        case 'tool_args':
          // Blocks cannot be reopened: arguments for a call whose block is closed have nowhere to go
          // (parsers send a call's arguments before starting the next call).
          if (open !== 'tool' || ev.tool !== openTool || ev.text.length === 0) return '';
          return delta(`{"type":"input_json_delta","partial_json":${JSON.stringify(ev.text)}}`);
        case 'end':
          return finish(stopReason(ev.finishReason, ev.matchedStop, toolCalls), ev.matchedStop, ev.promptTokens, ev.completionTokens);
      }
    },
    end() {
      // Every generation ends with an `end` event; this only guards a stream cut short.
      return finished ? '' : finish(stopReason(null, null, toolCalls), null, 0, 0);
    },
    error(err) {
      finished = true;
      return anthropicSseErrorFrame(streamErrorText(err));
    },
  };
}
