/**
 * A prompt worker thread: compiles the model's chat template and loads a tokenizer once, then
 * turns render requests (or plain text) into token ids, off the gateway's event loop. It encodes
 * with the fast ids-only encoder when that loads and reproduces every parity probe, else with the
 * Rust binding, else with the JS library (protocol.ts EncoderKind; the hello's note says why).
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { ChatTemplate, ChatTemplateError, type RenderRequest } from '../chat-prompt/chat-template.js';
import { parsePythonJson } from '../chat-prompt/template-compiler/python-json.js';
import { loadFastBpeEncoder, sameIds } from '../tokenizer/fast-bpe/index.js';
import { loadLibTokenizer } from '../tokenizer/load.js';
import { loadNativeEncoder, type TextEncoder } from './native-encoder.js';
import { packTokenIds } from '../../engine/msgpack/packed-token-ids.js';
import { PACK_MIN_IDS, type EncoderKind, type PromptJob, type PromptReply, type PromptWorkerInit, type WorkerHello } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('prompt-worker.ts runs only as a worker thread');
const init = workerData as PromptWorkerInit;

/**
 * This thread yields the cores to the event loop. A long prompt's encoding here (a 131k-token
 * prompt: ~40 ms of CPU) otherwise competes as an equal with the loop that writes every running
 * stream's tokens, and on a busy box the streams wait for a core. Niced, the thread still gets
 * every idle core, and a share of a busy one (weight 110 against the loop's 1024 at nice 0).
 * Measured on the 2-core bench (`--phases long-prompt`, six alternating pairs, 192 streams at
 * 10 ms steps beside 131k-token prompts): the streams' gap p99 with long prompts 17.7 ms mean
 * (16.4-20.6) against 19.6 (17.2-22.7), the longest loop turn at most 4.8 ms against 6.0, the long
 * prompts' TTFT p50 unchanged (341-347 ms).
 *
 * Linux only: there setpriority(PRIO_PROCESS, 0) sets the calling thread's nice value (threads
 * are tasks of their own; man 2 setpriority, BUGS), while elsewhere it would nice the whole
 * gateway.
 */
if (process.platform === 'linux') {
  try {
    setPriority(0, 10);
  } catch {
    // Not permitted (a seccomp profile, say): the thread runs at the process's priority.
  }
}

/** The first probe this encoder gets wrong, or null when it reproduces them all. */
async function firstMismatch(encode: TextEncoder): Promise<string | null> {
  for (const probe of init.probes) {
    if (!sameIds(await encode(probe.text), probe.ids)) return probe.text;
  }
  return null;
}

async function libEncoder(): Promise<TextEncoder> {
  const lib = await loadLibTokenizer(init.directory);
  return (text) => (text === '' ? [] : lib.encode(text, { add_special_tokens: false }).ids);
}

interface Encoder {
  encode: TextEncoder;
  /**
   * Whether the encoder gives the event loop's ids for this text. The binding receives text as
   * UTF-8, so a lone surrogate reaches it as U+FFFD, while the JS library (and the fast encoder)
   * split the text with the surrogate still in it and only then write U+FFFD bytes: pre-tokenizer
   * classes can differ (DeepSeek-V3's do). The binding leaves such text to the event loop.
   */
  exact: (text: string) => boolean;
}

const anyText = () => true;
const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();

/** The fast encoder when it loads and reproduces every probe, else why not. */
async function fastEncoder(): Promise<TextEncoder | string> {
  const loaded = await loadFastBpeEncoder(init.directory);
  if ('refused' in loaded) return `the fast encoder does not support this tokenizer: ${loaded.refused}`;
  const fast = loaded.encoder;
  const encode = (text: string) => fast.encode(text);
  const wrong = await firstMismatch(encode);
  return wrong === null ? encode : `the fast encoder encodes ${JSON.stringify(wrong.slice(0, 80))} differently from the event loop's tokenizer`;
}

async function start(): Promise<{ encoder: Encoder; template: ChatTemplate | null; hello: WorkerHello }> {
  const template = init.template
    ? ChatTemplate.compile(init.template.source, init.template.specials, { contentFormat: init.template.contentFormat })
    : null;
  const notes: string[] = [];
  const ready = (encoder: Encoder, kind: EncoderKind) => {
    const hello: WorkerHello = { ready: true, encoder: kind, note: notes.length > 0 ? notes.join('; ') : null };
    return { encoder, template, hello };
  };
  if (init.encoder === 'fast') {
    const fast = await fastEncoder();
    // Lone surrogates: the fast encoder splits and byte-encodes them as the JS library does.
    if (typeof fast !== 'string') return ready({ encode: fast, exact: anyText }, 'fast');
    notes.push(fast);
  }
  if (init.encoder === 'fast' || init.encoder === 'native') {
    const native = loadNativeEncoder(init.directory, init.cutTokens);
    if (typeof native === 'string') {
      notes.push(native);
    } else {
      const wrong = await firstMismatch(native);
      if (wrong === null) return ready({ encode: native, exact: wellFormed }, 'native');
      notes.push(`the tokenizers binding encodes ${JSON.stringify(wrong.slice(0, 80))} differently from the JS library`);
    }
  }
  const encode = await libEncoder();
  const wrong = await firstMismatch(encode);
  if (wrong !== null) throw new Error(`the worker's tokenizer encodes ${JSON.stringify(wrong.slice(0, 80))} differently`);
  return ready({ encode, exact: anyText }, 'js');
}

async function run(job: PromptJob, encoder: Encoder, template: ChatTemplate | null): Promise<PromptReply> {
  try {
    let text: string;
    if (job.op === 'text') {
      text = job.text;
    } else {
      if (!template) throw new Error('this worker has no chat template');
      const tools = job.toolsJson !== undefined ? (parsePythonJson(job.toolsJson) as RenderRequest['tools']) : job.request.tools;
      text = template.render({ ...job.request, tools });
    }
    if (!encoder.exact(text)) return { id: job.id, declined: true };
    const ids = Uint32Array.from(await encoder.encode(text));
    const packed = ids.length >= PACK_MIN_IDS ? packTokenIds(ids) : null;
    return packed ? { id: job.id, ids, packed } : { id: job.id, ids };
  } catch (err) {
    const kind = err instanceof ChatTemplateError ? 'template' : 'failed';
    return { id: job.id, error: kind, message: (err as Error).message };
  }
}

start().then(
  ({ encoder, template, hello }) => {
    port.on('message', (job: PromptJob) => {
      void run(job, encoder, template).then((reply) => {
        if ('ids' in reply) {
          const moved = [reply.ids.buffer as ArrayBuffer];
          if (reply.packed) moved.push(reply.packed.buffer as ArrayBuffer);
          port.postMessage(reply, moved);
        }
        else port.postMessage(reply);
      });
    });
    port.postMessage(hello);
  },
  (err: unknown) => {
    const hello: WorkerHello = { ready: false, message: (err as Error).message };
    port.postMessage(hello);
  },
);
