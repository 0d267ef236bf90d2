/**
 * Decoding worker-API bodies into typed specs. A failure carries its status and SMG's text: 415
 * (not JSON), 400 (malformed JSON), 422 (wrong shape); the route wraps it in the error envelope.
 */
import { jsonDepthProblem } from '../util/json-depth.js';
import { KNOWN_RUNTIMES, WORKER_TYPES, defaultSpec, type HealthSpec, type WorkerSpec } from './types.js';

export type BodyResult<T> = { ok: true; value: T } | { ok: false; status: 400 | 415 | 422; text: string };

const DESERIALIZE = 'Failed to deserialize the JSON body into the target type: ';

class ShapeError extends Error {}

export function decodeJsonBody(contentType: string | undefined, raw: string): BodyResult<unknown> {
  if (!contentType || !/^application\/([\w.+-]*\+)?json\b/i.test(contentType.trim())) {
    return { ok: false, status: 415, text: 'Expected request with `Content-Type: application/json`' };
  }
  const tooDeep = jsonDepthProblem(raw);
  if (tooDeep) return { ok: false, status: 400, text: `Failed to parse the request body as JSON: ${tooDeep}` };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (err) {
    return { ok: false, status: 400, text: `Failed to parse the request body as JSON: ${(err as Error).message}` };
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'sequence';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'string') return `string "${v}"`;
  return `${typeof v} \`${String(v)}\``;
}

function expect(field: string, v: unknown, ok: boolean, what: string): void {
  if (!ok) throw new ShapeError(`${field}: invalid type: ${typeName(v)}, expected ${what}`);
}

function optString(obj: Record<string, unknown>, key: string): string | null {
  const v = obj[key];
  if (v === undefined || v === null) return null;
  expect(key, v, typeof v === 'string', 'a string');
  return v as string;
}

function optNumber(obj: Record<string, unknown>, key: string, integer: boolean, min = -Infinity): number | null {
  const v = obj[key];
  if (v === undefined || v === null) return null;
  const ok = typeof v === 'number' && Number.isFinite(v) && (!integer || Number.isInteger(v)) && v >= min;
  expect(key, v, ok, integer ? (min >= 0 ? 'an unsigned integer' : 'an integer') : 'a number');
  return v as number;
}

function oneOf<T extends string>(key: string, v: string | null, allowed: readonly T[]): T | null {
  if (v === null) return null;
  const lower = v.toLowerCase();
  if (!(allowed as readonly string[]).includes(lower)) {
    throw new ShapeError(`${key}: unknown variant \`${v}\`, expected one of ${allowed.map((a) => `\`${a}\``).join(', ')}`);
  }
  return lower as T;
}

function decodeLabels(obj: Record<string, unknown>): Record<string, string> | null {
  const v = obj.labels;
  if (v === undefined || v === null) return null;
  expect('labels', v, typeof v === 'object' && !Array.isArray(v), 'a map');
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    expect(`labels.${k}`, val, typeof val === 'string', 'a string');
    out[k] = val as string;
  }
  return out;
}

function decodeHealth(obj: Record<string, unknown>): HealthSpec | null {
  const v = obj.health;
  if (v === undefined || v === null) return null;
  expect('health', v, typeof v === 'object' && !Array.isArray(v), 'struct HealthCheckUpdate');
  const h = v as Record<string, unknown>;
  const out: HealthSpec = {};
  const n = (key: keyof HealthSpec, min: number) => {
    const val = optNumber(h, key, true, min);
    if (val !== null) (out as Record<string, number>)[key] = val;
  };
  n('timeout_secs', 0);
  n('check_interval_secs', 0);
  n('success_threshold', 0);
  n('failure_threshold', 0);
  n('drain_settle_secs', 0);
  if (h.disable_health_check !== undefined && h.disable_health_check !== null) {
    expect('disable_health_check', h.disable_health_check, typeof h.disable_health_check === 'boolean', 'a boolean');
    out.disable_health_check = h.disable_health_check as boolean;
  }
  return out;
}

/** `served_model_name`: one name or a non-empty list of names (vLLM's flag takes several). */
function servedNames(obj: Record<string, unknown>): string[] | null {
  const v = obj.served_model_name;
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v === '' ? null : [v];
  expect('served_model_name', v, Array.isArray(v) && v.every((n) => typeof n === 'string' && n !== ''), 'a string or a sequence of non-empty strings');
  const names = [...new Set(v as string[])];
  return names.length > 0 ? names : null;
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ShapeError(`invalid type: ${typeName(value)}, expected ${what}`);
  }
  return value as Record<string, unknown>;
}

/** POST/PUT body → WorkerSpec. Unknown fields are ignored. */
export function decodeWorkerSpec(value: unknown): BodyResult<WorkerSpec> {
  try {
    const obj = asObject(value, 'struct WorkerSpec');
    if (obj.url === undefined) throw new ShapeError('missing field `url`');
    const url = optString(obj, 'url') ?? '';
    const spec = defaultSpec(url);
    spec.runtimeType = oneOf('runtime_type', optString(obj, 'runtime_type') ?? optString(obj, 'runtime'), KNOWN_RUNTIMES);
    spec.workerType = oneOf('worker_type', optString(obj, 'worker_type'), WORKER_TYPES) ?? 'regular';
    spec.connectionMode = optString(obj, 'connection_mode');
    spec.zmqHandshakeAddress = optString(obj, 'zmq_handshake_address');
    spec.dpSize = optNumber(obj, 'dp_size', true, 0);
    spec.modelId = optString(obj, 'model_id');
    spec.servedModelName = servedNames(obj);
    spec.labels = decodeLabels(obj) ?? {};
    if (obj.models !== undefined && obj.models !== null) {
      expect('models', obj.models, Array.isArray(obj.models), 'a sequence');
      spec.models = (obj.models as unknown[]).map((m) => asObject(m, 'struct ModelCard'));
    }
    spec.priority = optNumber(obj, 'priority', true, 0) ?? 50;
    spec.cost = optNumber(obj, 'cost', false) ?? 1.0;
    spec.apiKey = optString(obj, 'api_key');
    spec.health = decodeHealth(obj) ?? {};
    return { ok: true, value: spec };
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, status: 422, text: DESERIALIZE + err.message };
    throw err;
  }
}

export interface WorkerPatch {
  priority: number | null;
  cost: number | null;
  labels: Record<string, string> | null;
  apiKey: string | null;
  health: HealthSpec | null;
}

/** PATCH body: every field optional; labels merge, health is partial. */
export function decodeWorkerPatch(value: unknown): BodyResult<WorkerPatch> {
  try {
    const obj = asObject(value, 'struct WorkerUpdateRequest');
    return {
      ok: true,
      value: {
        priority: optNumber(obj, 'priority', true, 0),
        cost: optNumber(obj, 'cost', false),
        labels: decodeLabels(obj),
        apiKey: optString(obj, 'api_key'),
        health: decodeHealth(obj),
      },
    };
  } catch (err) {
    if (err instanceof ShapeError) return { ok: false, status: 422, text: DESERIALIZE + err.message };
    throw err;
  }
}
