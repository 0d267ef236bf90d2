/**
 * Routes over the history store: the stored-response endpoints beside POST /v1/responses, and
 * /v1/conversations. Thin: path parameters and query in, the api/ handler's Response out.
 */
import type { Context, Hono } from 'hono';
import * as conversations from '../../api/conversations/handlers.js';
import * as responses from '../../api/responses/store-routes.js';
import type { StoreCall } from '../../api/store-handler.js';
import type { HistoryStore } from '../../history/types.js';
import type { GatewayContext } from '../context.js';
import type { AppEnv } from '../middleware/env.js';

type Route = (store: HistoryStore | undefined, call: Omit<StoreCall, 'store'>) => Promise<Response>;

export function registerHistoryRoutes(app: Hono<AppEnv>, ctx: GatewayContext): void {
  const run = (route: Route) => (c: Context<AppEnv>) =>
    route(ctx.history, { params: c.req.param() as Record<string, string>, query: new URL(c.req.url).searchParams, request: c.req.raw });

  app.get('/v1/responses/:id', run(responses.getResponse));
  app.delete('/v1/responses/:id', run(responses.deleteResponse));
  app.get('/v1/responses/:id/input_items', run(responses.listInputItems));
  app.post('/v1/responses/:id/cancel', run(responses.cancelResponse));

  app.post('/v1/conversations', run(conversations.createConversation));
  app.get('/v1/conversations/:id', run(conversations.getConversation));
  app.post('/v1/conversations/:id', run(conversations.updateConversation));
  app.delete('/v1/conversations/:id', run(conversations.deleteConversation));
  app.get('/v1/conversations/:id/items', run(conversations.listItems));
  app.post('/v1/conversations/:id/items', run(conversations.createItems));
  app.get('/v1/conversations/:id/items/:itemId', run(conversations.getItem));
  app.delete('/v1/conversations/:id/items/:itemId', run(conversations.deleteItem));
}
