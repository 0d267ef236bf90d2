/**
 * Messages between the gateway's event loop and a prompt worker thread. Plain data only: every
 * value crosses by structured clone, the token ids by transfer of their buffer.
 */
import type { ContentFormat } from '../chat-prompt/chat-template-analysis.js';
import type { RenderRequest, TemplateSpecialTokens } from '../chat-prompt/chat-template.js';

/**
 * How a worker turns text into ids: the fast ids-only encoder (tokenizer/fast-bpe/), the Rust
 * `tokenizers` binding, or the same pure-JS library the event loop falls back to. A worker starts
 * at the kind it is asked for and moves down that order past any encoder that does not load or
 * disagrees with the event loop's tokenizer on the parity probes.
 */
export type EncoderKind = 'fast' | 'native' | 'js';

export interface PromptWorkerInit {
  /** The resolved tokenizer directory (tokenizer.json, tokenizer_config.json). */
  directory: string;
  /** The model's chat template, compiled once per worker; null when chat prompts never come here. */
  template: { source: string; specials: TemplateSpecialTokens; contentFormat: ContentFormat } | null;
  encoder: EncoderKind;
  /** Added tokens after which a long text may be cut to encode its pieces in parallel. */
  cutTokens: string[];
  /** Texts and the ids the event loop's tokenizer gives them: a worker must reproduce them all. */
  probes: Array<{ text: string; ids: number[] }>;
}

export type PromptJob =
  /** `toolsJson`: the request's tools in their Python form as JSON text (structured clone would lose it). */
  | { id: number; op: 'chat'; request: RenderRequest; toolsJson?: string }
  | { id: number; op: 'text'; text: string };

/**
 * From this many ids on, a thread also sends the ids as the msgpack array an ADD carries
 * (engine/msgpack/packed-token-ids.ts): checking and writing them on the event loop costs ~8 ns
 * per id there (~1 ms for a 131k-token prompt), packing them costs the thread about as much.
 */
export const PACK_MIN_IDS = 8192;

export type PromptReply =
  /** `packed`: the ids' msgpack array, when there are PACK_MIN_IDS or more and the guards accept them all. */
  | { id: number; ids: Uint32Array; packed?: Uint8Array }
  /** This text is one the worker cannot encode exactly: the event loop must (see prompt-worker.ts). */
  | { id: number; declined: true }
  /** `template`: the template raised (a client error); `failed`: anything else. */
  | { id: number; error: 'template' | 'failed'; message: string };

/** The first message a worker sends. */
export type WorkerHello = { ready: true; encoder: EncoderKind; note: string | null } | { ready: false; message: string };
