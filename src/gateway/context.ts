/**
 * Everything a gateway instance shares across its routes, built once. `buildApp(ctx)` turns it into
 * a Hono app; `startGateway` adds the listeners. Tests build a context with a fake connect.
 */
import { createLogger, type Logger } from '../util/logger.js';
import { connectEngine, type ConnectEngineFn } from '../workers/connect.js';
import { WorkerManager } from '../workers/manager.js';
import { cardParsers } from '../workers/model-card.js';
import { InMemoryTokenizerRegistry, type TokenizerRegistry } from '../workers/tokenizer-registry.js';
import { workersConfigOf, type GatewayConfig } from './config.js';
import { Lifecycle } from './lifecycle.js';
import { GatewayMetrics } from './metrics.js';
import type { ApiDeps } from '../api/types.js';
import type { PipelineServices } from '../pipeline/services.js';

export interface GatewayContext {
  config: GatewayConfig;
  logger: Logger;
  workers: WorkerManager;
  tokenizers: TokenizerRegistry;
  metrics: GatewayMetrics;
  lifecycle: Lifecycle;
  deps: ApiDeps;
  services: PipelineServices;
}

export interface ContextOptions {
  logger?: Logger;
  /** Engine connector; the real ZMQ client by default. */
  connect?: ConnectEngineFn;
  deps?: ApiDeps;
  tokenizers?: TokenizerRegistry;
  random?: () => number;
  /** Process/nodejs default metrics (on for the real server, off for unit tests). */
  defaultMetrics?: boolean;
}

export function createGatewayContext(config: GatewayConfig, opts: ContextOptions = {}): GatewayContext {
  const logger = opts.logger ?? createLogger({ level: config.logLevel, json: config.logJson });
  const tokenizers = opts.tokenizers ?? new InMemoryTokenizerRegistry();
  const deps = opts.deps ?? {};
  let manager: WorkerManager | null = null;
  const metrics = new GatewayMetrics(() => manager?.list() ?? [], { defaultMetrics: opts.defaultMetrics });
  manager = new WorkerManager({
    config: workersConfigOf(config),
    logger,
    connect: opts.connect ?? connectEngine,
    tokenizers,
    loadTokenizer: deps.loadTokenizer ?? null,
    metrics,
    random: opts.random,
  });
  const workers = manager;
  return {
    config,
    logger,
    workers,
    tokenizers,
    metrics,
    lifecycle: new Lifecycle(),
    deps,
    services: {
      config,
      logger,
      workers: {
        pickWorker: (model, tokenIds, needs) => workers.pickWorker(model, tokenIds, needs),
        modelIds: () => workers.modelIds(),
        configuredParsers: (model) => {
          const card = cardParsers(workers.list(), model);
          return { tool: card.tool ?? config.toolCallParser, reasoning: card.reasoning ?? config.reasoningParser };
        },
      },
      tokenizers,
      metrics: metrics.router,
    },
  };
}
