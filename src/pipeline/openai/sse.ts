/**
 * An SSE body pulled from an async iterator of `data:` payloads: one frame is produced only when
 * the client is ready for it, so a slow reader slows the loop instead of buffering without bound.
 */
const encoder = new TextEncoder();

export const SSE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
};

export function sseResponse(frames: AsyncIterator<string>, onCancel: () => void, headers: Record<string, string>): Response {
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await frames.next();
        if (r.done) controller.close();
        else controller.enqueue(encoder.encode(`data: ${r.value}\n\n`));
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
