/**
 * create_local_worker for an http(s):// URL: an OpenAI-compatible upstream (another `smg serve`,
 * `vllm serve`, SGLang) that src/forward/ passes requests to as they came. It needs no tokenizer
 * and no --model-path: when the spec names no model, the names come from the upstream's own
 * /v1/models at the first healthy probe (SMG discovers an HTTP worker's model the same way,
 * smg-project/smg model_gateway/src/workflow/steps/ … detect/discover model info).
 */
import { resolveHealth } from './health-settings.js';
import { RegistrationError, dpAwareRefusal, type RegistrationEnv } from './registration-types.js';
import type { WorkerSpec } from './types.js';
import type { WorkerIdentity } from './worker.js';

/** The spec's own model names (model_id, served_model_name, labels, card); never the gateway's. */
export function ownNames(spec: WorkerSpec): string[] {
  const card = spec.models.find((m) => typeof m.id === 'string');
  const first =
    spec.modelId ?? spec.labels.model_id ?? spec.servedModelName?.[0] ?? spec.labels.served_model_name ?? (card ? (card.id as string) : null);
  if (first === null) return [];
  return [...new Set([first, ...(spec.servedModelName ?? [])])];
}

export function resolveHttpWorker(spec: WorkerSpec, id: string, env: RegistrationEnv): WorkerIdentity {
  const url = spec.url.replace(/\/+$/, '');
  if (spec.workerType !== 'regular') {
    throw new RegistrationError(
      `HTTP worker ${spec.url} cannot serve worker type ${spec.workerType}: prefill/decode/encode disaggregation is not forwarded by this gateway`,
    );
  }
  if (spec.dpSize !== null && spec.dpSize > 1 && env.config.dpAware) {
    throw new RegistrationError(dpAwareRefusal(spec.url, spec.dpSize, true));
  }
  const names = ownNames(spec);
  return {
    id,
    url: spec.url,
    transport: 'http',
    // Unused for HTTP (no ZMQ dialect); GET /workers shows the spec's runtime_type as given.
    runtime: spec.runtimeType === 'tokenspeed' ? 'tokenspeed' : 'vllm',
    engineCount: 1,
    handshakeOverride: null,
    handshakeAddress: url,
    // Empty until the upstream's /v1/models names it (the worker stays pending meanwhile).
    modelId: names[0] ?? '',
    modelNames: names,
    tokenizerSource: null,
    spec,
    health: resolveHealth(spec, env.config),
  };
}
