/**
 * A server-sent-events body fed by a generation's events. Frames are produced only when the client
 * is ready for them, so a slow reader slows the loop instead of buffering without bound; frames
 * whose events are already queued go out in the same write, so a burst of tokens costs one
 * enqueue/read/write instead of one per token.
 */
import type { AsyncQueue } from '../pipeline/async-queue.js';
import type { GenEvent } from '../pipeline/events.js';
import type { FrameBytes } from './frame-bytes.js';

const encoder = new TextEncoder();

export const SSE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
};

/** Frames coalesced into one write at most; keeps one busy stream from hogging the loop. */
const MAX_BATCH_CHARS = 64 * 1024;

/** A protocol's streaming encoder: complete SSE frame text (`data: …\n\n`, or with `event:` lines). */
export interface SseEncoder {
  /** Frames sent as soon as the stream opens, before the first event (e.g. Anthropic's `message_start`). */
  start?(): string;
  /** Frames for one event ('' when it shows nothing). */
  event(ev: GenEvent): string;
  /**
   * The same frames written straight into a stream's pending bytes, for the events that are most
   * of a stream (token text): true when it wrote them, false to have event() make them instead.
   * The bytes must be exactly what event() would return.
   */
  eventInto?(ev: GenEvent, out: FrameBytes): boolean;
  /** Frames after the last event. */
  end(): string;
  /** Frames reporting a failure after the stream started (the status is already 200). */
  error(err: unknown): string;
}

/** `data: <payload>\n\n`. */
export const dataFrame = (payload: string): string => `data: ${payload}\n\n`;

export function sseResponse(
  events: AsyncQueue<GenEvent>,
  enc: SseEncoder,
  opts: { onCancel: () => void; onClose: () => void; headers: Record<string, string> },
): Response {
  const it = events[Symbol.asyncIterator]();
  let closed = false;
  let started = false;
  const close = () => {
    if (closed) return;
    closed = true;
    opts.onClose();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        const head = enc.start?.() ?? '';
        if (head) {
          controller.enqueue(encoder.encode(head));
          return;
        }
      }
      let out = '';
      try {
        do {
          const r = await it.next();
          if (r.done) {
            out += enc.end();
            controller.enqueue(encoder.encode(out));
            controller.close();
            close();
            return;
          }
          out += enc.event(r.value);
        } while (out.length < MAX_BATCH_CHARS && events.size > 0);
      } catch (err) {
        // The failure may be this stream's own encoding: its error frame is tried, and when that
        // throws too the body errors (the connection is cut) and the generation is stopped.
        try {
          out += enc.error(err);
        } catch (e) {
          opts.onCancel();
          close();
          controller.error(e);
          return;
        }
        controller.enqueue(encoder.encode(out));
        controller.close();
        close();
        return;
      }
      if (out) controller.enqueue(encoder.encode(out));
    },
    cancel() {
      opts.onCancel();
      close();
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...opts.headers } });
}
