/**
 * GET /v1/models and GET /v1/models/{id}: every registered worker's model (pending ones too), one
 * entry per served name, as vLLM lists `--served-model-name` values. `created` is when the
 * model's first worker registered; `max_model_len` is the engines' (reported at handshake), else
 * the model config's `max_position_embeddings`, else null.
 */
import type { Hono } from 'hono';
import type { GatewayContext } from '../context.js';
import { gatewayError } from '../errors.js';
import type { AppEnv } from '../middleware/env.js';
import type { ModelContext } from '../../pipeline/model-context.js';
import type { ServedModel } from '../../workers/manager.js';

function configLength(ctx: GatewayContext, id: string): number | null {
  const v = (ctx.tokenizers.get(id) as ModelContext | undefined)?.tokenizer.modelConfig?.max_position_embeddings;
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : null;
}

function entries(ctx: GatewayContext, m: ServedModel): Record<string, unknown>[] {
  const maxModelLen = m.maxModelLen ?? configLength(ctx, m.id);
  return m.names.map((name) => ({
    id: name,
    object: 'model',
    created: m.created,
    owned_by: 'self_hosted',
    root: m.root ?? m.id,
    parent: null,
    max_model_len: maxModelLen,
  }));
}

export function registerModelRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  app.get('/v1/models', (c) => {
    const models = ctx.workers.models();
    if (models.length === 0) return c.text('No models available', 503);
    const seen = new Set<string>();
    const data = models.flatMap((m) => entries(ctx, m)).filter((e) => !seen.has(e.id as string) && seen.add(e.id as string));
    return c.json({ object: 'list', data });
  });

  // Hub ids contain a slash (`meta-llama/Llama-3.1-8B-Instruct`): the id is the rest of the path.
  app.get('/v1/models/:id{.+}', (c) => {
    const name = c.req.param('id');
    for (const m of ctx.workers.models()) {
      const entry = entries(ctx, m).find((e) => e.id === name);
      if (entry) return c.json(entry);
    }
    return gatewayError(404, 'model_not_found', `The model '${name}' does not exist`);
  });
}
