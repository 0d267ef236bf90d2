/**
 * The startup handshake maps (HELLO, INIT, READY) shared by vLLM and TokenSpeed engines
 * (wire-vllm §2.2, wire-tokenspeed §2.2–2.3). Gateway side: decode HELLO/READY, encode INIT.
 * Engine side (for the mock engine): encode HELLO/READY, decode INIT as strictly as msgspec does.
 *
 * Key order matters only for byte-exact vectors; engines decode maps by name.
 */
import { decode, Encoder } from '@msgpack/msgpack';

export class HandshakeDecodeError extends Error {
  override name = 'HandshakeDecodeError';
}

export type HandshakeStatus = 'HELLO' | 'READY';

/** HELLO or READY as the gateway reads it. Unknown keys are kept in `raw` and otherwise ignored. */
export interface StatusMessage {
  status: string;
  local: boolean | null;
  headless: boolean | null;
  /** Present on MoE DP>1 vLLM READY; TokenSpeed sends nil; absent otherwise. */
  parallelConfigHash: string | null | undefined;
  raw: Record<string, unknown>;
}

export interface InitAddresses {
  inputs: string[];
  outputs: string[];
  coordinatorInput: string | null;
  coordinatorOutput: string | null;
  frontendStatsPublishAddress: string | null;
}

export interface InitMessage {
  addresses: InitAddresses;
  parallelConfig: Record<string, unknown>;
}

// One encoder is enough: handshake messages are rare and the encoder is not re-entrant-sensitive.
const encoder = new Encoder();

function encodeMap(map: Record<string, unknown>): Buffer {
  const bytes = encoder.encode(map);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A msgpack map as the library decodes it (not nil, array or bin). */
function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function decodeMap(payload: Uint8Array, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = decode(payload);
  } catch (err) {
    throw new HandshakeDecodeError(`undecodable ${what} message: ${(err as Error).message}`);
  }
  if (!isMap(value)) throw new HandshakeDecodeError(`${what} message is not a map`);
  return value;
}

// ---------------------------------------------------------------- gateway side

/** Decodes a handshake-socket message (HELLO or READY); the caller dispatches on `status`. */
export function decodeStatusMessage(payload: Uint8Array): StatusMessage {
  const raw = decodeMap(payload, 'handshake');
  const status = raw.status;
  if (typeof status !== 'string') {
    throw new HandshakeDecodeError('handshake message has no string `status`');
  }
  const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
  const hash = raw.parallel_config_hash;
  return {
    status,
    local: bool(raw.local),
    headless: bool(raw.headless),
    parallelConfigHash:
      hash === undefined ? undefined : typeof hash === 'string' ? hash : hash === null ? null : String(hash),
    raw,
  };
}

/**
 * The INIT the gateway sends every engine of a group: one input, one output, no coordinator,
 * empty parallel_config (engines keep their own CLI values). Key order as in vector H2.
 */
export function encodeInit(input: string, output: string): Buffer {
  return encodeMap({
    addresses: {
      inputs: [input],
      outputs: [output],
      coordinator_input: null,
      coordinator_output: null,
      frontend_stats_publish_address: null,
    },
    parallel_config: {},
  });
}

// ---------------------------------------------------------------- engine side

export interface StatusOptions {
  /** vLLM headless: false; TokenSpeed: true. */
  local?: boolean;
  headless?: boolean;
  /** undefined → key omitted (vLLM dense); null → nil (TokenSpeed); string → MoE DP>1 hash. */
  parallelConfigHash?: string | null;
}

function encodeStatus(status: HandshakeStatus, opts: StatusOptions): Buffer {
  const map: Record<string, unknown> = {
    status,
    local: opts.local ?? false,
    headless: opts.headless ?? true,
  };
  if (opts.parallelConfigHash !== undefined) map.parallel_config_hash = opts.parallelConfigHash;
  return encodeMap(map);
}

export function encodeHello(opts: StatusOptions = {}): Buffer {
  return encodeStatus('HELLO', opts);
}

export function encodeReady(opts: StatusOptions = {}): Buffer {
  return encodeStatus('READY', opts);
}

function optionalString(v: unknown, key: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new HandshakeDecodeError(`INIT: \`${key}\` must be a string or nil`);
  return v;
}

function stringArray(v: unknown, key: string): string[] {
  if (!Array.isArray(v)) throw new HandshakeDecodeError(`INIT: missing required array \`${key}\``);
  for (const s of v) {
    if (typeof s !== 'string') throw new HandshakeDecodeError(`INIT: \`${key}\` must hold strings`);
  }
  return v as string[];
}

/**
 * Decodes INIT the way the engine's msgspec struct does: `addresses.inputs`, `addresses.outputs`
 * and `parallel_config` are required, the coordinator keys default to nil, unknown keys are
 * ignored. Emptiness of inputs/outputs is left to the caller (TokenSpeed fails after READY).
 */
export function decodeInit(payload: Uint8Array): InitMessage {
  const raw = decodeMap(payload, 'INIT');
  const addr = raw.addresses;
  if (!isMap(addr)) throw new HandshakeDecodeError('INIT: missing required map `addresses`');
  const a = addr;
  const pc = raw.parallel_config;
  if (!isMap(pc)) throw new HandshakeDecodeError('INIT: missing required map `parallel_config`');
  return {
    addresses: {
      inputs: stringArray(a.inputs, 'addresses.inputs'),
      outputs: stringArray(a.outputs, 'addresses.outputs'),
      coordinatorInput: optionalString(a.coordinator_input, 'addresses.coordinator_input'),
      coordinatorOutput: optionalString(a.coordinator_output, 'addresses.coordinator_output'),
      frontendStatsPublishAddress: optionalString(
        a.frontend_stats_publish_address,
        'addresses.frontend_stats_publish_address',
      ),
    },
    parallelConfig: pc,
  };
}
