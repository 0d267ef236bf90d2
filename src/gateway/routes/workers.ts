/**
 * Worker API (cli-and-api §5.7). Synchronous checks answer here; registration, updates and
 * removal run as background jobs (202), whose failures show in the log and in `job_status`.
 * Every error, body-parse failures included, is the gateway envelope (src/gateway/errors.ts) with
 * SMG's message text; the code names the failure (`worker_not_found`, `worker_already_exists`,
 * `invalid_worker_url`, `invalid_worker_spec`, …) where SMG sends `BAD_REQUEST` / `WORKER_*`.
 */
import type { Context, Hono } from 'hono';
import { decodeJsonBody, decodeWorkerPatch, decodeWorkerSpec } from '../../workers/worker-spec.js';
import { placeholderEntry, workerEntry } from '../../workers/worker-view.js';
import { checkWorkerUrl } from '../../workers/url-checks.js';
import { workerSpecProblem } from '../../workers/api-checks.js';
import type { GatewayContext } from '../context.js';
import { openaiEnvelope } from '../../api/openai/errors.js';
import { gatewayError } from '../errors.js';
import type { AppEnv } from '../middleware/env.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why `raw` is not a UUID, worded like the uuid crate's parse errors. */
function uuidProblem(raw: string): string | null {
  if (UUID.test(raw) || /^[0-9a-f]{32}$/i.test(raw)) return null;
  const bad = [...raw].findIndex((ch) => !/[0-9a-fA-F-]/.test(ch));
  if (bad >= 0) {
    return `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${[...raw][bad]}\` at ${bad + 1}`;
  }
  if (raw.includes('-')) {
    const groups = raw.split('-');
    if (groups.length !== 5) return `invalid group count: expected 5, found ${groups.length}`;
    const want = [8, 4, 4, 4, 12];
    const g = groups.findIndex((s, i) => s.length !== want[i]);
    return `invalid group length in group ${g}: expected ${want[g]}, found ${groups[g].length}`;
  }
  return `invalid length: expected length 32 for simple format, found ${raw.length}`;
}

type IdCheck = { ok: true; id: string } | { ok: false; res: Response };

function checkId(c: Context<AppEnv>): IdCheck {
  const raw = c.req.param('id') ?? '';
  const problem = uuidProblem(raw);
  if (problem) {
    return { ok: false, res: gatewayError(400, 'invalid_worker_id', `Invalid worker_id '${raw}' (expected UUID). Error: ${problem}`, 'worker_id') };
  }
  return { ok: true, id: raw.toLowerCase() };
}

function notFound(ctx: GatewayContext, id: string): Response {
  const job = ctx.workers.jobs.get(id);
  const body: Record<string, unknown> = { ...openaiEnvelope(404, 'worker_not_found', `Worker ${id} not found`, 'worker_id') };
  // A failed registration stays visible next to the 404 (SMG's `job_status`).
  if (job) body.job_status = job;
  return Response.json(body, { status: 404, headers: { 'X-SMG-Error-Code': 'worker_not_found' } });
}

/** Body-parse and shape failures: 415 not JSON, 400 malformed JSON, 422 not a worker spec. */
const BODY_CODES: Record<400 | 415 | 422, string> = { 400: 'json_parse_error', 415: 'unsupported_media_type', 422: 'invalid_worker_spec' };

function bodyError(r: { status: 400 | 415 | 422; text: string }): Response {
  return gatewayError(r.status, BODY_CODES[r.status], r.text);
}

async function readJson(c: Context<AppEnv>): Promise<{ ok: true; value: unknown } | { ok: false; res: Response }> {
  const r = decodeJsonBody(c.req.header('content-type'), await c.req.text());
  if (!r.ok) return { ok: false, res: bodyError(r) };
  return { ok: true, value: r.value };
}

export function registerWorkerRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  const manager = ctx.workers;

  app.post('/workers', async (c) => {
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const spec = decodeWorkerSpec(body.value);
    if (!spec.ok) return bodyError(spec);
    const bad = checkWorkerUrl(spec.value.url);
    if (bad) return gatewayError(400, 'invalid_worker_url', bad, 'url');
    const problem = workerSpecProblem(spec.value, { dpAware: ctx.config.dpAware });
    if (problem) return gatewayError(400, problem.code, problem.message, problem.param);
    const r = manager.submitAdd(spec.value);
    if (!r.ok) {
      const url = spec.value.url;
      const msg =
        r.code === 'WORKER_ALREADY_EXISTS'
          ? `Worker already exists at URL '${url}' with ID ${r.id}. Use PUT /workers/${r.id} to replace or PATCH /workers/${r.id} to update.`
          : `Worker creation already in progress for URL '${url}' with ID ${r.id}`;
      return gatewayError(409, r.code.toLowerCase(), msg, 'url');
    }
    const location = `/workers/${r.id}`;
    return c.json(
      {
        status: 'accepted',
        worker_id: r.id,
        url: spec.value.url,
        location,
        message: 'Worker addition queued for background processing',
      },
      202,
      { Location: location },
    );
  });

  app.get('/workers', (c) => {
    const model = c.req.query('model');
    const workers = manager.list().filter((w) => model === undefined || w.modelId === model);
    return c.json({
      workers: workers.map(workerEntry),
      total: workers.length,
      stats: { prefill_count: 0, decode_count: 0, regular_count: workers.length },
    });
  });

  app.get('/workers/:id', (c) => {
    const id = checkId(c);
    if (!id.ok) return id.res;
    const w = manager.get(id.id);
    const job = manager.jobs.get(id.id);
    if (w) {
      const entry = workerEntry(w);
      if (job) entry.job_status = job;
      return c.json(entry);
    }
    const pending = manager.registeringSpec(id.id);
    if (pending) return c.json(placeholderEntry(id.id, pending, job));
    return notFound(ctx, id.id);
  });

  app.patch('/workers/:id', async (c) => {
    const id = checkId(c);
    if (!id.ok) return id.res;
    if (!manager.get(id.id)) return notFound(ctx, id.id);
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const patch = decodeWorkerPatch(body.value);
    if (!patch.ok) return bodyError(patch);
    if (!manager.submitPatch(id.id, patch.value)) return notFound(ctx, id.id);
    return c.json({ status: 'accepted', worker_id: id.id, message: 'Worker update queued for background processing' }, 202);
  });

  app.put('/workers/:id', async (c) => {
    const id = checkId(c);
    if (!id.ok) return id.res;
    const w = manager.get(id.id);
    if (!w) return notFound(ctx, id.id);
    const body = await readJson(c);
    if (!body.ok) return body.res;
    const spec = decodeWorkerSpec(body.value);
    if (!spec.ok) return bodyError(spec);
    if (spec.value.url !== w.url) {
      return gatewayError(
        400,
        'url_mismatch',
        `URL mismatch: worker has URL '${w.url}' but request body has '${spec.value.url}'. URL changes are not supported via PUT. Use DELETE + POST instead.`,
      );
    }
    const problem = workerSpecProblem(spec.value, { dpAware: false });
    if (problem) return gatewayError(400, problem.code, problem.message, problem.param);
    if (ctx.config.dpAware) {
      return gatewayError(
        400,
        'data_parallel_put_unsupported',
        `Worker '${w.url}' belongs to a data-parallel group. PUT is not supported for data-parallel workers. Use DELETE + POST instead.`,
      );
    }
    if (!manager.submitReplace(id.id, spec.value)) return notFound(ctx, id.id);
    return c.json({ status: 'accepted', worker_id: id.id, message: 'Worker update queued for background processing' }, 202);
  });

  app.delete('/workers/:id', (c) => {
    const id = checkId(c);
    if (!id.ok) return id.res;
    if (!manager.submitRemove(id.id)) return notFound(ctx, id.id);
    return c.json({ status: 'accepted', worker_id: id.id, message: 'Worker removal queued for background processing' }, 202);
  });
}
