/**
 * TokenSpeed refuses what it cannot serve (logprobs without --enable-output-logprobs, a grammar
 * without xgrammar, …) with a terminal `abort` row before any token (wire-tokenspeed Errata 2).
 * Over SSE that would arrive after the 200 was committed; waiting for the first generation event
 * lets a streaming handler still answer with the proper status. Nothing is lost: the event that
 * was read is replayed first.
 */
export async function awaitFirstEvent<T>(events: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const it = events[Symbol.asyncIterator]();
  const first = await it.next();
  let replayed = false;
  const replay: AsyncIterator<T> = {
    next: () => {
      if (replayed) return it.next();
      replayed = true;
      return Promise.resolve(first);
    },
    return: (value?: unknown) => it.return?.(value) ?? Promise.resolve({ done: true, value: undefined as T }),
  };
  return { [Symbol.asyncIterator]: () => replay };
}
