/**
 * What the pipeline needs of "the client went away": the part of AbortSignal it uses. The Node
 * server passes a lighter object than a real AbortSignal (gateway/close-signal.ts): an
 * AbortController and its EventTarget cost ~10 µs per request; an AbortSignal also fits.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
