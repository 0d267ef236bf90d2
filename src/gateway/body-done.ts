/**
 * Streaming responses outlive their handler: the handler returns when the head is ready, the body
 * keeps flowing. Anything that must last "until the last byte" (concurrency permits, in-flight
 * counts for graceful shutdown) hooks the end of the body here.
 */
export function onBodyDone(res: Response, done: () => void): Response {
  let fired = false;
  const finish = () => {
    if (fired) return;
    fired = true;
    done();
  };
  if (!res.body) {
    finish();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          ctrl.close();
          finish();
        } else {
          ctrl.enqueue(value);
        }
      } catch (err) {
        ctrl.error(err);
        finish();
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
