/**
 * The create_local_worker step: every registration rejection, in SMG's execution order, with its
 * exact text; on success the identity a Worker is built from.
 */
import { deriveAddresses, IpcPathError } from '../engine/ipc-path.js';
import type { RuntimeType } from '../engine/types.js';
import { connectionModeOf } from './url-checks.js';
import { resolveHttpWorker } from './http-registration.js';
import { RegistrationError, dpAwareRefusal, type RegistrationEnv } from './registration-types.js';
import { resolveHealth } from './health-settings.js';
import type { WorkerSpec, WorkersConfig } from './types.js';
import type { WorkerIdentity } from './worker.js';

export { RegistrationError, type RegistrationEnv } from './registration-types.js';
export { resolveHealth } from './health-settings.js';


const RUNTIME_UNSPECIFIED =
  'runtime_type unspecified for ZMQ worker; defaulting to vLLM EngineCore. A TokenSpeed engine must declare its runtime to speak the correct wire protocol: `--backend tokenspeed` for startup --worker-urls workers, or an explicit runtime_type on the worker API spec / YAML worker config.';

/**
 * The names a ZMQ worker answers to, canonical first (the id /v1/models and responses report):
 * the spec's own identity (model_id, served_model_name, labels, model card), else the gateway's
 * --served-model-name, else its --model-path. As in vLLM, every served name is accepted as a
 * request's `model`; a model card's `aliases` are accepted too. Empty when nothing names it.
 */
export function resolveModelNames(spec: WorkerSpec, config: WorkersConfig): string[] {
  const card = spec.models.find((m) => typeof m.id === 'string');
  const own: string[] = [];
  const first =
    spec.modelId ??
    spec.labels.model_id ??
    spec.servedModelName?.[0] ??
    spec.labels.served_model_name ??
    spec.labels.model_path ??
    (card ? (card.id as string) : null);
  if (first !== null) {
    own.push(first);
    if (spec.servedModelName) own.push(...spec.servedModelName);
  } else if (config.servedModelNames.length > 0) {
    own.push(...config.servedModelNames);
  } else if (config.modelPath !== null) {
    own.push(config.modelPath);
  }
  if (own.length > 0 && card && card.id === own[0] && Array.isArray(card.aliases)) {
    for (const a of card.aliases) if (typeof a === 'string' && a !== '') own.push(a);
  }
  return [...new Set(own)];
}

/** The canonical model id of a worker spec, or null when nothing names the model. */
export function resolveModelId(spec: WorkerSpec, config: WorkersConfig): string | null {
  return resolveModelNames(spec, config)[0] ?? null;
}


/** Throws RegistrationError with the user-visible reason; returns the identity otherwise. */
export function resolveWorker(spec: WorkerSpec, id: string, env: RegistrationEnv): WorkerIdentity {
  const { config } = env;
  const url = spec.url;
  const mode = connectionModeOf(url);
  const zmqIntent = mode === 'Zmq' || spec.connectionMode?.toLowerCase() === 'zmq';
  const log = env.logger.child({ worker: url });

  // detect_backend runs before create_local_worker, so its warning comes first.
  let runtime = spec.runtimeType;
  if (zmqIntent && runtime === null) {
    log.warn(RUNTIME_UNSPECIFIED);
    runtime = 'vllm';
  }

  if (env.urlTaken(url)) throw new RegistrationError(`Worker ${url} already exists`);

  const modelNames = resolveModelNames(spec, config);
  const modelId = modelNames[0] ?? null;
  if (zmqIntent && modelId === null) {
    throw new RegistrationError(
      `ZMQ worker ${url} has no model identity: EngineCore does not report a served model name, so --model-path (or a model_id label) is required`,
    );
  }

  if (!zmqIntent) {
    if (spec.zmqHandshakeAddress !== null) {
      throw new RegistrationError(
        `worker ${url} sets zmq_handshake_address but its connection mode is ${mode}: the field is only meaningful for ZMQ workers`,
      );
    }
    // HTTP(S) upstreams are forwarded to (src/forward/); there is no gRPC backend.
    if (mode === 'Http') return resolveHttpWorker(spec, id, env);
    throw new RegistrationError(
      `worker ${url} has connection mode ${mode}: this gateway serves ZMQ direct (ipc://) and HTTP(S) workers only`,
    );
  }

  if (runtime !== 'vllm' && runtime !== 'tokenspeed') {
    throw new RegistrationError(
      `ZMQ worker ${url} has unsupported runtime ${runtime}: only vllm and tokenspeed are supported over the ZMQ direct backend`,
    );
  }

  if (spec.workerType !== 'regular') {
    throw new RegistrationError(
      `ZMQ worker ${url} cannot serve worker type ${spec.workerType}: the direct-ZMQ backend carries no KV-transfer metadata and has no encode path, so encode/prefill/decode disaggregation requires a gRPC worker`,
    );
  }

  // The engine client's own address checks (ipc:// URL, tcp:// override, socket-path length), run
  // here so an address it would refuse fails the registration instead of every later handshake.
  const override = spec.zmqHandshakeAddress;
  let handshakeAddress: string;
  try {
    handshakeAddress = deriveAddresses(url, override).handshake;
  } catch (err) {
    if (err instanceof IpcPathError) throw new RegistrationError(err.message);
    throw err;
  }
  for (const peer of env.zmqPeers()) {
    if (peer.url !== url && peer.handshakeAddress === handshakeAddress) {
      throw new RegistrationError(
        `ZMQ worker ${url} would bind handshake address ${handshakeAddress}, already claimed by worker ${peer.url}: the derived port is a hash of the ipc path, so rename this worker's ipc path or set zmq_handshake_address to a free tcp:// address`,
      );
    }
  }

  // Health checks are the only path that reconnects a restarted engine, so they cannot be turned off.
  if (config.disableHealthCheck || spec.health.disable_health_check === true) {
    log.warn(
      `Ignoring disabled health checks for ZMQ worker ${url}: the ZMQ probe is a local liveness check and the only path that reconnects a restarted engine, so it stays enabled`,
    );
  }

  const engineCount = Math.max(1, spec.dpSize ?? 1);
  if (config.dpAware && engineCount > 1) {
    throw new RegistrationError(dpAwareRefusal(url, engineCount, false));
  }

  return {
    id,
    url,
    transport: 'zmq',
    runtime: runtime as RuntimeType,
    engineCount,
    handshakeOverride: override,
    handshakeAddress,
    modelId: modelId as string,
    modelNames,
    tokenizerSource:
      spec.labels.tokenizer_path ?? config.tokenizerPath ?? spec.labels.model_path ?? config.modelPath ?? modelId,
    spec,
    health: resolveHealth(spec, config),
  };
}
