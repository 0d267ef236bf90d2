/**
 * A text completion (request-pipeline §3.2): each prompt (text or token ids) is tokenized without
 * special tokens, as SMG does, and fans out into n choices; all choices run as one generation.
 */
import { buildSampling, checkTopLogprobs, decodeRules } from './build-sampling.js';
import { invalid } from './errors.js';
import { fanOut } from './fan-out.js';
import type { GenerationSpec } from './generation-spec.js';
import { backendRequestId, engineRequestBase } from './ids.js';
import { acquireWorker, modelContextFor, resolveRequestModel } from './model-lookup.js';
import { encodePromptText } from './prompt-pool/encode-prompt.js';
import type { CompletionGenerationRequest } from './request.js';
import type { PipelineServices } from './services.js';
import { planStopStrings } from './stop-plan.js';
import { tracePhase } from '../tracing/request-trace.js';

export interface PreparedCompletion extends GenerationSpec {
  id: string;
  created: number;
  /** Choices per prompt. */
  n: number;
  /** Echoed prompt text per prompt ('' when echo is off). */
  echoText: string[];
}

export async function prepareCompletion(
  services: PipelineServices,
  asked: CompletionGenerationRequest,
  requestId: string,
): Promise<PreparedCompletion> {
  const req = { ...asked, model: resolveRequestModel(services, asked.model) };
  const ctx = modelContextFor(services, req.model);
  const tok = ctx.tokenizer;
  const enc = { tokenizer: tok, pool: ctx.prompts ?? null, limit: { tokenizer: tok, maxModelLen: services.workers.largestModelLen?.(req.model) ?? null } };
  // Long texts are encoded on the model's prompt threads, all prompts of the request at once.
  const prompts = await tracePhase('tokenize', () => Promise.all(req.prompts.map((p) => ('text' in p ? encodePromptText(enc, p.text) : p.tokenIds))));
  for (const ids of prompts) {
    for (const id of ids) if (id >= tok.vocabSize) throw invalid(`prompt: token id ${id} is out of vocabulary (size ${tok.vocabSize})`);
  }
  const { worker, client } = acquireWorker(services, req.model, prompts[0], { topLogprobs: req.logprobs ?? 0 });
  checkTopLogprobs(worker.runtime, req.logprobs ?? 0);
  const plan = planStopStrings(req.stop, tok);
  const id = backendRequestId(req.rid, requestId);
  const engineBase = engineRequestBase(id, req.rid, worker.runtime);
  const builds = prompts.map((ids) =>
    buildSampling(req, {
      runtime: worker.runtime,
      promptLen: ids.length,
      maxModelLen: client.maxModelLen,
      vocab: tok,
      logprobs: req.logprobs ?? null,
      stopPlan: plan,
    }),
  );
  const choices = prompts.flatMap((ids, p) =>
    fanOut(p * req.n, prompts.length > 1 ? `${engineBase}-p${p}` : engineBase, ids, builds[p].spec, req.n, worker.runtime),
  );
  return {
    worker,
    client,
    tokenizer: tok,
    choices,
    // The stop ids do not depend on the prompt: every build has the same.
    rules: decodeRules(plan, builds[0], { keepStop: req.keepStop, skipSpecialTokens: req.skipSpecialTokens }),
    output: null,
    stream: req.stream,
    model: req.model,
    priority: req.priority,
    id,
    created: Math.floor(Date.now() / 1000),
    n: req.n,
    echoText: req.echo ? req.prompts.map((p, i) => ('text' in p ? p.text : tok.decode(prompts[i], false))) : prompts.map(() => ''),
  };
}
