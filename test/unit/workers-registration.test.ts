import { describe, expect, it } from 'vitest';
import { defaultGatewayConfig, workersConfigOf } from '../../src/gateway/config.js';
import { handshakeAddressFor } from '../../src/engine/fnv-port.js';
import { RegistrationError, resolveWorker, type RegistrationEnv } from '../../src/workers/registration.js';
import { captureLogger } from '../support/log-capture.js';
import { defaultSpec, type WorkerSpec } from '../../src/workers/types.js';
import { checkWorkerUrl } from '../../src/workers/url-checks.js';

const URL_A = 'ipc:///tmp/smg-zmq/engine-0';

function env(over: Partial<RegistrationEnv> & { modelPath?: string | null; dpAware?: boolean; disableHealthCheck?: boolean } = {}) {
  const cap = captureLogger();
  const cfg = workersConfigOf({
    ...defaultGatewayConfig(),
    modelPath: over.modelPath === undefined ? 'meta-llama/Llama-3.1-8B-Instruct' : over.modelPath,
    dpAware: over.dpAware ?? false,
    disableHealthCheck: over.disableHealthCheck ?? false,
  });
  const e: RegistrationEnv = {
    config: cfg,
    logger: cap.logger,
    urlTaken: over.urlTaken ?? (() => false),
    zmqPeers: over.zmqPeers ?? (() => []),
  };
  return { env: e, cap };
}

function spec(over: Partial<WorkerSpec> = {}): WorkerSpec {
  return { ...defaultSpec(URL_A), runtimeType: 'vllm', ...over };
}

function rejection(s: WorkerSpec, e: RegistrationEnv): string {
  try {
    resolveWorker(s, 'id-1', e);
  } catch (err) {
    expect(err).toBeInstanceOf(RegistrationError);
    return (err as Error).message;
  }
  throw new Error('expected a rejection');
}

describe('worker URL checks (400 texts)', () => {
  it.each([
    ['', "Invalid value for field 'worker_url':  - URL cannot be empty"],
    ['IPC:///tmp/x', "Invalid value for field 'worker_url': IPC:///tmp/x - URL must start with a lowercase http://, https://, grpc://, grpcs://, or ipc:// scheme"],
    ['tcp://127.0.0.1:1', "Invalid value for field 'worker_url': tcp://127.0.0.1:1 - URL must start with a lowercase http://, https://, grpc://, grpcs://, or ipc:// scheme"],
    ['ipc://', "Invalid value for field 'worker_url': ipc:// - ipc:// worker URL must include a socket path"],
  ])('%j', (url, text) => {
    expect(checkWorkerUrl(url)).toBe(text);
  });

  it('accepts ipc and http URLs', () => {
    expect(checkWorkerUrl(URL_A)).toBeNull();
    expect(checkWorkerUrl('http://127.0.0.1:8000')).toBeNull();
  });
});

describe('registration rejections (create_local_worker)', () => {
  it('accepts a plain ZMQ worker and derives the handshake address', () => {
    const { env: e } = env();
    const id = resolveWorker(spec(), 'id-1', e);
    expect(id.runtime).toBe('vllm');
    expect(id.engineCount).toBe(1);
    expect(id.handshakeAddress).toBe(handshakeAddressFor(URL_A));
    expect(id.handshakeAddress).toBe('tcp://127.0.0.1:22670');
    expect(id.modelId).toBe('meta-llama/Llama-3.1-8B-Instruct');
  });

  it('defaults an unspecified runtime to vLLM with the exact warning', () => {
    const { env: e, cap } = env();
    const id = resolveWorker(spec({ runtimeType: null }), 'id-1', e);
    expect(id.runtime).toBe('vllm');
    expect(cap.find('WARN')[0]).toContain(
      'runtime_type unspecified for ZMQ worker; defaulting to vLLM EngineCore. A TokenSpeed engine must declare its runtime to speak the correct wire protocol: `--backend tokenspeed` for startup --worker-urls workers, or an explicit runtime_type on the worker API spec / YAML worker config.',
    );
  });

  it('duplicate', () => {
    const { env: e } = env({ urlTaken: () => true });
    expect(rejection(spec(), e)).toBe(`Worker ${URL_A} already exists`);
  });

  it('no model identity', () => {
    const { env: e } = env({ modelPath: null });
    expect(rejection(spec(), e)).toBe(
      `ZMQ worker ${URL_A} has no model identity: EngineCore does not report a served model name, so --model-path (or a model_id label) is required`,
    );
  });

  it('model identity from labels wins over --model-path', () => {
    const { env: e } = env({ modelPath: null });
    expect(resolveWorker(spec({ labels: { model_path: '/models/q' } }), 'i', e).modelId).toBe('/models/q');
    expect(resolveWorker(spec({ modelId: 'named' }), 'i', e).modelId).toBe('named');
  });

  it('handshake override on a non-ZMQ worker', () => {
    const { env: e } = env();
    const url = 'http://127.0.0.1:8000';
    expect(rejection(spec({ url, zmqHandshakeAddress: 'tcp://127.0.0.1:30500' }), e)).toBe(
      `worker ${url} sets zmq_handshake_address but its connection mode is Http: the field is only meaningful for ZMQ workers`,
    );
    expect(rejection(spec({ url: 'grpc://h:1', zmqHandshakeAddress: 'tcp://127.0.0.1:30500' }), e)).toContain(
      'its connection mode is Grpc',
    );
  });

  it('unsupported runtime', () => {
    const { env: e } = env();
    expect(rejection(spec({ runtimeType: 'sglang' }), e)).toBe(
      `ZMQ worker ${URL_A} has unsupported runtime sglang: only vllm and tokenspeed are supported over the ZMQ direct backend`,
    );
  });

  it.each(['prefill', 'decode', 'encode'] as const)('worker type %s', (t) => {
    const { env: e } = env();
    expect(rejection(spec({ workerType: t }), e)).toBe(
      `ZMQ worker ${URL_A} cannot serve worker type ${t}: the direct-ZMQ backend carries no KV-transfer metadata and has no encode path, so encode/prefill/decode disaggregation requires a gRPC worker`,
    );
  });

  it('zmq connection mode on a non-ipc URL', () => {
    const { env: e } = env();
    expect(rejection(spec({ url: 'http://h:1', connectionMode: 'zmq' }), e)).toBe(
      "ZMQ worker URL must be ipc://<path>, got 'http://h:1'",
    );
  });

  it('handshake override must be tcp://', () => {
    const { env: e } = env();
    expect(rejection(spec({ zmqHandshakeAddress: 'ipc:///tmp/hs' }), e)).toBe(
      "zmq_handshake_address must be a tcp:// address (the engine dials a TCP handshake), got 'ipc:///tmp/hs'",
    );
  });

  it('handshake address already claimed by another worker', () => {
    const other = 'ipc:///tmp/other';
    const { env: e } = env({ zmqPeers: () => [{ url: other, handshakeAddress: 'tcp://127.0.0.1:30500' }] });
    expect(rejection(spec({ zmqHandshakeAddress: 'tcp://127.0.0.1:30500' }), e)).toBe(
      `ZMQ worker ${URL_A} would bind handshake address tcp://127.0.0.1:30500, already claimed by worker ${other}: the derived port is a hash of the ipc path, so rename this worker's ipc path or set zmq_handshake_address to a free tcp:// address`,
    );
    // The same URL (update path) is never a collision with itself.
    const { env: e2 } = env({ zmqPeers: () => [{ url: URL_A, handshakeAddress: handshakeAddressFor(URL_A) }] });
    expect(() => resolveWorker(spec(), 'x', e2)).not.toThrow();
  });

  it('grouped worker under --dp-aware', () => {
    const { env: e } = env({ dpAware: true });
    expect(rejection(spec({ dpSize: 2 }), e)).toBe(
      `ZMQ worker ${URL_A} cannot be dp-aware expanded (dp_size=2); configure a grouped ZMQ worker (\`dp_size\` on the worker spec) instead`,
    );
    expect(resolveWorker(spec({ dpSize: 1 }), 'x', e).engineCount).toBe(1);
  });

  it('dp_size makes a grouped worker', () => {
    const { env: e } = env();
    expect(resolveWorker(spec({ dpSize: 4 }), 'x', e).engineCount).toBe(4);
    expect(resolveWorker(spec({ dpSize: 0 }), 'x', e).engineCount).toBe(1);
  });

  it('disabled health checks are ignored for ZMQ with the exact warning', () => {
    const { env: e, cap } = env({ disableHealthCheck: true });
    resolveWorker(spec(), 'x', e);
    expect(cap.find('Ignoring disabled health checks')[0]).toContain(
      `Ignoring disabled health checks for ZMQ worker ${URL_A}: the ZMQ probe is a local liveness check and the only path that reconnects a restarted engine, so it stays enabled`,
    );
  });
});
