/**
 * POST /v1/completions over ZMQ: each prompt (text or token ids) is tokenized without special
 * tokens, as SMG does, and fans out into n choices; all choices stream through one generation.
 */
import type { InferenceCall, InferenceHandler } from '../../gateway/route-deps.js';
import { buildSampling, checkTopLogprobs, decodeRules } from '../build-sampling.js';
import { fanOut } from '../generate.js';
import { backendRequestId, engineRequestBase } from '../ids.js';
import { planStopStrings } from '../stop-plan.js';
import { parseCompletionRequest } from './completion-request.js';
import { collectCompletion, completionFrames } from './completion-respond.js';
import { invalid } from './errors.js';
import { acquireWorker, modelContextFor, readJsonBody } from './route-context.js';
import { runAndRespond, withApiErrors } from './run-and-respond.js';

export function createCompletionHandler(): InferenceHandler {
  return withApiErrors(handleCompletion);
}

async function handleCompletion(call: InferenceCall): Promise<Response> {
  const { services } = call;
  const req = parseCompletionRequest(await readJsonBody(call.request));
  const ctx = modelContextFor(services, req.model);
  const tok = ctx.tokenizer;
  const prompts = req.prompts.map((p) => ('text' in p ? tok.encode(p.text, false) : p.tokenIds));
  for (const ids of prompts) {
    for (const id of ids) if (id >= tok.vocabSize) throw invalid(`prompt: token id ${id} is out of vocabulary (size ${tok.vocabSize})`);
  }
  const { worker, client } = acquireWorker(services, req.model, prompts[0]);
  checkTopLogprobs(worker.runtime, req.logprobs ?? 0);
  const plan = planStopStrings(req.stop, tok);
  const wireId = backendRequestId(req.rid, call.requestId);
  const engineBase = engineRequestBase(wireId, req.rid, worker.runtime);
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
    fanOut(p * req.n, prompts.length > 1 ? `${engineBase}-p${p}` : engineBase, ids, builds[p].spec, req.n),
  );
  // The stop ids do not depend on the prompt: every build has the same.
  const rules = decodeRules(plan, builds[0], { keepStop: req.keepStop, skipSpecialTokens: req.skipSpecialTokens });
  const meta = {
    id: wireId,
    created: Math.floor(Date.now() / 1000),
    model: req.model,
    n: req.n,
    echoText: req.echo ? req.prompts.map((p, i) => ('text' in p ? p.text : tok.decode(prompts[i], false))) : prompts.map(() => ''),
    suffix: req.suffix ?? '',
    tokenizer: tok,
    logprobs: req.logprobs ?? null,
    includeUsage: req.includeUsage,
  };
  return runAndRespond({
    call,
    worker,
    client,
    tokenizer: tok,
    choices,
    rules,
    stream: req.stream,
    model: req.model,
    endpoint: 'completions',
    meta,
    frames: completionFrames,
    collect: collectCompletion,
  });
}
