/**
 * The health probe of an HTTP worker: `GET <url><--health-check-endpoint>` answered 2xx within
 * the probe timeout (SMG: cli-and-api §3, "http → GET http://<host>:<port>/health == 200"), and
 * the upstream's model list from its `GET /v1/models` (OpenAI's list shape, which vLLM, SGLang and
 * smg all serve), so a gateway fronting HTTP workers needs no model path of its own.
 */

import type { Logger } from '../util/logger.js';
import type { Worker } from './worker.js';

export interface ProbeResult {
  ok: boolean;
  /** Why the probe failed, in words for GET /workers. */
  error?: string;
}

function authHeaders(apiKey: string | null): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

function reasonOf(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'timed out';
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

export async function probeHealth(url: string, endpoint: string, timeoutMs: number, apiKey: string | null): Promise<ProbeResult> {
  const target = joinUrl(url, endpoint);
  try {
    const res = await fetch(target, { headers: authHeaders(apiKey), signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.ok ? { ok: true } : { ok: false, error: `GET ${target} answered ${res.status}` };
  } catch (err) {
    return { ok: false, error: `GET ${target} failed: ${reasonOf(err)}` };
  }
}

/** The model cards of the upstream's /v1/models (each with a string `id`), or an error text. */
export async function fetchModels(
  url: string,
  timeoutMs: number,
  apiKey: string | null,
): Promise<{ models: Array<Record<string, unknown>> } | { error: string }> {
  const target = joinUrl(url, '/v1/models');
  try {
    const res = await fetch(target, { headers: authHeaders(apiKey), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      await res.body?.cancel();
      return { error: `GET ${target} answered ${res.status}` };
    }
    const body = (await res.json()) as { data?: unknown };
    const models = Array.isArray(body.data)
      ? body.data.filter((m): m is Record<string, unknown> => typeof m === 'object' && m !== null && typeof (m as { id?: unknown }).id === 'string')
      : [];
    if (models.length === 0) return { error: `GET ${target} listed no models` };
    return { models };
  } catch (err) {
    return { error: `GET ${target} failed: ${reasonOf(err)}` };
  }
}

/**
 * One probe of an HTTP worker: its health endpoint, and while it has no model yet (or its cards
 * were never read), its /v1/models, whose ids then name the worker. Not healthy while unnamed.
 */
export async function checkHttpWorker(w: Worker, endpoint: string | null, log: Logger): Promise<ProbeResult> {
  const { health, spec } = w.identity;
  const timeoutMs = health.timeoutSecs * 1000;
  // endpoint null: health checks are off, only the model list is read.
  const result = endpoint === null ? { ok: true } : await probeHealth(w.url, endpoint, timeoutMs, spec.apiKey);
  if (!result.ok || (w.modelId !== '' && w.upstreamModels !== null)) return result;
  const listed = await fetchModels(w.url, timeoutMs, spec.apiKey);
  if ('error' in listed) return w.modelId === '' ? { ok: false, error: listed.error } : result;
  w.upstreamModels = listed.models;
  if (w.modelId === '') {
    const names = listed.models.map((m) => m.id as string);
    w.updateIdentity({ ...w.identity, modelId: names[0], modelNames: names });
    log.info(`HTTP worker ${w.url} serves model ${names.join(', ')}`);
  }
  return result;
}
