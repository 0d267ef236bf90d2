/**
 * An SSE body pulled from an async iterator of `data:` payloads: one frame is produced only when
 * the client is ready for it, so a slow reader slows the loop instead of buffering without bound.
 */
const encoder = new TextEncoder();

const SSE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
};

/** Frames coalesced into one write at most; keeps one busy stream from hogging the loop. */
const MAX_BATCH_CHARS = 64 * 1024;

/**
 * `moreReady` says whether the next frame is already computable (its events are queued): those
 * frames go out in the same write, so a burst of tokens costs one enqueue/read/write instead of one
 * per token.
 */
export function sseResponse(
  frames: AsyncIterator<string>,
  onCancel: () => void,
  headers: Record<string, string>,
  moreReady: () => boolean = () => false,
): Response {
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let out = '';
        do {
          const r = await frames.next();
          if (r.done) {
            if (out) controller.enqueue(encoder.encode(out));
            controller.close();
            return;
          }
          out += `data: ${r.value}\n\n`;
        } while (out.length < MAX_BATCH_CHARS && moreReady());
        controller.enqueue(encoder.encode(out));
      } catch (err) {
        controller.error(err);
      }
    },
    cancel() {
      onCancel();
      void frames.return?.();
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...headers } });
}
