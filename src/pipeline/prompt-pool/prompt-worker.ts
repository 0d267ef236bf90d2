/**
 * A prompt worker thread: compiles the model's chat template and loads a tokenizer once, then
 * turns render requests (or plain text) into token ids, off the gateway's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ChatTemplate, ChatTemplateError } from '../chat-template.js';
import { loadLibTokenizer } from '../tokenizer/load.js';
import { loadNativeEncoder, type TextEncoder } from './native-encoder.js';
import type { EncoderKind, PromptJob, PromptReply, PromptWorkerInit, WorkerHello } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('prompt-worker.ts runs only as a worker thread');
const init = workerData as PromptWorkerInit;

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
   * The binding receives text as UTF-8, so a lone surrogate reaches it as U+FFFD, while the JS
   * library splits the text with the surrogate still in it (and only then writes U+FFFD bytes):
   * pre-tokenizer classes can differ (DeepSeek-V3's do). Such text is left to the event loop.
   */
  exact: (text: string) => boolean;
}

const anyText = () => true;
const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed();

async function start(): Promise<{ encoder: Encoder; template: ChatTemplate | null; hello: WorkerHello }> {
  const template = init.template ? ChatTemplate.compile(init.template.source, init.template.specials) : null;
  let note: string | null = null;
  if (init.encoder === 'native') {
    const native = loadNativeEncoder(init.directory, init.cutTokens);
    if (typeof native === 'string') {
      note = native;
    } else {
      const wrong = await firstMismatch(native);
      if (wrong === null) {
        return { encoder: { encode: native, exact: wellFormed }, template, hello: { ready: true, encoder: 'native', note } };
      }
      note = `the tokenizers binding encodes ${JSON.stringify(wrong.slice(0, 80))} differently from the JS library`;
    }
  }
  const encode = await libEncoder();
  const wrong = await firstMismatch(encode);
  if (wrong !== null) throw new Error(`the worker's tokenizer encodes ${JSON.stringify(wrong.slice(0, 80))} differently`);
  const kind: EncoderKind = 'js';
  return { encoder: { encode, exact: anyText }, template, hello: { ready: true, encoder: kind, note } };
}

async function run(job: PromptJob, encoder: Encoder, template: ChatTemplate | null): Promise<PromptReply> {
  try {
    let text: string;
    if (job.op === 'text') {
      text = job.text;
    } else {
      if (!template) throw new Error('this worker has no chat template');
      text = template.render(job.request);
    }
    if (!encoder.exact(text)) return { id: job.id, declined: true };
    const ids = Uint32Array.from(await encoder.encode(text));
    return { id: job.id, ids };
  } catch (err) {
    const kind = err instanceof ChatTemplateError ? 'template' : 'failed';
    return { id: job.id, error: kind, message: (err as Error).message };
  }
}

start().then(
  ({ encoder, template, hello }) => {
    port.on('message', (job: PromptJob) => {
      void run(job, encoder, template).then((reply) => {
        if ('ids' in reply) port.postMessage(reply, [reply.ids.buffer as ArrayBuffer]);
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
