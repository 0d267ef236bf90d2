/**
 * The seam between the HTTP routes and the protocol front-ends. Routes stay thin: they hand the
 * raw fetch Request plus the pipeline's services to a handler and return its Response. Handlers
 * never see Hono; the gateway never sees prompts or tokens.
 */
import type { HistoryStore } from '../history/types.js';
import type { CancelSignal } from '../pipeline/cancel-signal.js';
import type { PipelineServices } from '../pipeline/services.js';
import type { TokenizerLoader } from '../workers/tokenizer-registry.js';

/**
 * The HTTP response itself, when the server offers it (Node): a streaming answer writes its frames
 * straight to the socket instead of through a web ReadableStream. Absent under `app.request()`.
 */
export interface RawResponse {
  readonly headersSent: boolean;
  /** The client is gone or the response ended. */
  readonly closed: boolean;
  /** Sets the status and headers; they leave with the first write, or at `flushHead`. */
  writeHead(status: number, headers: Record<string, string>): void;
  /** Sends the head now, alone. */
  flushHead(): void;
  /**
   * From now on the writer frames the body's chunks itself: each write() and end(chunk) is one
   * whole HTTP/1.1 chunk (`<hex size>\r\n<bytes>\r\n`), and end() adds the last chunk. Called
   * right after writeHead; false (nothing changes) when the body is not chunked (HTTP/1.0) or the
   * server frames it some other way. Optional: a response without it frames its own chunks.
   */
  chunkSelf?(): boolean;
  /** False when the socket buffer is full: wait for `onDrain` before writing more. */
  write(chunk: Buffer): boolean;
  end(chunk?: Buffer | string): void;
  /** The socket holds none of the bytes written so far (they all reached the kernel). */
  readonly idle: boolean;
  onDrain(cb: () => void): void;
  /** Cuts the connection: the response can neither be finished nor answered any more. */
  destroy(): void;
  /** What the handler returns after writing the response itself. */
  readonly sent: Response;
}

/**
 * What a handler reads of the client's request: its headers and its body text. A web Request is
 * one; so is the Node-backed request of the gateway's direct front (gateway/direct-front.ts).
 */
export interface InferenceRequest {
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface InferenceCall {
  /** The client's request, body unread. */
  request: InferenceRequest;
  /** Direct access to the response (Node server only). */
  raw?: RawResponse;
  /** From x-request-id / x-correlation-id / x-trace-id / request-id, else generated; echoed back. */
  requestId: string;
  /** Aborts when the client disconnects (and on forced shutdown). */
  signal: CancelSignal;
  services: PipelineServices;
  /** Stored responses and conversations; absent = nothing is kept (as --history-backend none). */
  history?: HistoryStore;
  /**
   * Whether anything reads the request's record (api/request-record.ts: the access log, at info
   * and unless disabled); absent = yes. When nothing does, the worker and token counts are not kept.
   */
  recorded?: boolean;
}

export type InferenceHandler = (call: InferenceCall) => Promise<Response>;

export type InferenceEndpoint =
  | 'chat_completions'
  | 'completions'
  | 'messages'
  | 'messages_count_tokens'
  | 'generate'
  | 'responses'
  | 'tokenize'
  | 'detokenize';

export interface ApiDeps {
  /** Endpoint handlers; an endpoint without one answers 501. */
  inference?: Partial<Record<InferenceEndpoint, InferenceHandler>>;
  /** Loads a model's tokenizer when its first worker registers (unless --disable-tokenizer-autoload). */
  loadTokenizer?: TokenizerLoader;
}

/** Public path of each inference endpoint. */
export const INFERENCE_PATHS: Record<InferenceEndpoint, string> = {
  chat_completions: '/v1/chat/completions',
  completions: '/v1/completions',
  messages: '/v1/messages',
  messages_count_tokens: '/v1/messages/count_tokens',
  responses: '/v1/responses',
  generate: '/generate',
  tokenize: '/tokenize',
  detokenize: '/detokenize',
};
