/**
 * What the bench sends. Seven kinds of chat request, all streaming with ignore_eos:
 *   stream      the short prompt, --max-tokens tokens (the throughput phases)
 *   short       the short prompt, 1 token (CPU per request, the RSS soak)
 *   long        a --long-prompt-tokens prompt (~131k), distinct per request, --long-max-tokens tokens
 *   cost        a --prompt-cost-tokens prompt (~2k), distinct per request, --long-max-tokens tokens
 *   background  the short prompt, --long-stream-max-tokens tokens (streams under the long prompts)
 *   paced       the short prompt, pacedMaxTokens() tokens (the paced phase's streams)
 *   arrival     the short prompt, --arrivals-max-tokens tokens (the arrival burst)
 * The direct target needs the token ids and sampling the gateway would build; they are computed
 * here with the gateway's own template and tokenizer code.
 */
import type { SamplingSpec } from '../../src/engine/types.js';
import { parseChatRequest } from '../../src/api/openai/chat-request.js';
import { buildSampling } from '../../src/pipeline/build-sampling.js';
import { buildTemplateKwargs } from '../../src/pipeline/chat-prompt/chat-template-thinking.js';
import { loadModelContext } from '../../src/pipeline/model-context.js';
import { pacedMaxTokens, type BenchOptions } from './args.js';
import type { RequestBody } from './http-client.js';

export type Kind = 'stream' | 'short' | 'long' | 'cost' | 'background' | 'paced' | 'arrival';
export const KINDS: readonly Kind[] = ['stream', 'short', 'long', 'cost', 'background', 'paced', 'arrival'];
/** Kinds whose prompt is long and distinct per request (the direct target cannot send them). */
export type LongKind = 'long' | 'cost';

export interface Workloads {
  /** Token ids of the short prompt as the gateway renders and encodes it. */
  promptTokenIds: number[];
  /** Tokens of the long prompts (request 0) as the gateway would count them: scenario, prompt cost. */
  longPromptTokens: number;
  costPromptTokens: number;
  maxTokens(kind: Kind): number;
  /** The HTTP body of a kind for a model id: fixed, or one per request number (long prompts). */
  httpBody(kind: Kind, model: string): Buffer | ((seq: number) => RequestBody);
  /** Engine sampling for the direct target (short-prompt kinds only). */
  sampling(kind: Exclude<Kind, LongKind>, maxModelLen: number): SamplingSpec;
  /** Decoded text of count-mode token i (for frames synthesized without a gateway). */
  tokenText(i: number): string;
}

/** Varied prose, so the tokenizer sees ordinary text rather than one repeated phrase. */
const WORDS = (
  'the lighthouse keeper walked along the rocky shore at dawn collecting driftwood and glass ' +
  'while gulls circled overhead and the tide pulled back to reveal tangled kelp crabs and an old ' +
  'bottle sealed with wax inside was a letter written in faded ink describing a voyage across ' +
  'northern waters a storm that lasted eleven days a broken mast and a promise to return before ' +
  'winter she read it twice then climbed the spiral stairs lit the lamp and wondered who had ' +
  'thrown it into the sea and whether anyone still waited for an answer measured careful numbers ' +
  'like 1842 or 73 percent appear sometimes along with names such as Marguerite Osei Halvorsen'
).split(' ');

function prose(words: number): string {
  let seed = 12345;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out.push(WORDS[seed % WORDS.length]);
    if (i % 17 === 16) out[out.length - 1] += '.';
  }
  return out.join(' ');
}

function longMessage(text: string, seq: number): string {
  return `Request ${seq}. Summarize the following notes in one sentence.\n\n${text}`;
}

export async function buildWorkloads(opts: BenchOptions): Promise<Workloads> {
  const ctx = await loadModelContext({ modelId: opts.model, source: opts.model, chatTemplate: null });
  const template = ctx.template;
  if (!template) throw new Error(`model ${opts.model} has no usable chat template: ${ctx.templateError}`);
  // Mirror the chat handler: template with the same kwargs, encode without special tokens.
  const kwargs = buildTemplateKwargs(
    { chatTemplateKwargs: {}, toolChoice: undefined, reasoningEffort: undefined, responseFormat: undefined },
    template.thinking,
  );
  const encodeChat = (content: string) =>
    ctx.tokenizer.encode(template.render({ messages: [{ role: 'user', content }], addGenerationPrompt: true, kwargs }), false);

  const promptTokenIds = encodeChat(opts.prompt);
  // Only the prompts a phase of this run sends are calibrated (131k tokens take a few seconds).
  const textFor = (tokens: number, needed: boolean) => (needed ? calibrate(tokens, (t) => encodeChat(longMessage(t, 0)).length) : prose(16));
  const longText = textFor(opts.longPromptTokens, opts.phases.includes('long-prompt'));
  const costText = textFor(opts.promptCostTokens, opts.phases.includes('prompt-cost'));
  const longPromptTokens = encodeChat(longMessage(longText, 0)).length;
  const costPromptTokens = encodeChat(longMessage(costText, 0)).length;

  const MAX_TOKENS: Record<Kind, number> = {
    stream: opts.maxTokens,
    short: 1,
    long: opts.longMaxTokens,
    cost: opts.longMaxTokens,
    background: opts.longStreamMaxTokens,
    paced: pacedMaxTokens(opts),
    arrival: opts.arrivalsMaxTokens,
  };
  const maxTokens = (kind: Kind) => MAX_TOKENS[kind];
  const baseBody = (kind: Kind) => ({
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: maxTokens(kind),
    ignore_eos: true,
    temperature: 0,
  });
  const shortMessages = [{ role: 'user', content: opts.prompt }];

  return {
    promptTokenIds,
    longPromptTokens,
    costPromptTokens,
    maxTokens,
    httpBody(kind, model) {
      if (kind !== 'long' && kind !== 'cost') return Buffer.from(JSON.stringify({ model, messages: shortMessages, ...baseBody(kind) }));
      const base = baseBody(kind);
      const text = kind === 'long' ? longText : costText;
      // "Request <seq>." leads the message, so no two prompts share a prefix a cache could reuse.
      // The body is serialized once around a marker and sent in three parts with only the number
      // made per request: building each 131k-token body (~1.4 MB of large V8 strings, then a 0.7 MB
      // buffer) ran this process into full GCs of 10-17 ms while it was reading the background
      // streams, and the stall showed up as their inter-token gap (long-prompt windows, client GC
      // pause row).
      const MARK = '\u0000SEQ\u0000';
      const whole = JSON.stringify({ model, messages: [{ role: 'user', content: longMessage(text, -1).replace('-1', MARK) }], ...base });
      const marked = JSON.stringify(MARK).slice(1, -1);
      const cut = whole.indexOf(marked);
      const head = Buffer.from(whole.slice(0, cut));
      const tail = Buffer.from(whole.slice(cut + marked.length));
      return (seq) => [head, Buffer.from(String(seq)), tail];
    },
    sampling(kind, maxModelLen) {
      const parsed = parseChatRequest({ model: 'bench', messages: shortMessages, ...baseBody(kind) });
      return buildSampling(parsed, { runtime: 'vllm', promptLen: promptTokenIds.length, maxModelLen, vocab: ctx.tokenizer, logprobs: null }).spec;
    },
    tokenText: (i) => ctx.tokenizer.decode([opts.countBase + i], false),
  };
}

/** Prose whose rendered prompt is about `target` tokens (binary search on the word count). */
function calibrate(target: number, tokensOf: (text: string) => number): string {
  let lo = 1;
  let hi = Math.max(2, target * 2);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (tokensOf(prose(mid)) <= target) lo = mid;
    else hi = mid - 1;
  }
  return prose(lo);
}
