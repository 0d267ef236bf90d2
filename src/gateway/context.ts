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
import { createHistoryStore } from '../history/factory.js';
import type { HistoryStore } from '../history/types.js';
import type { PipelineServices, WorkerPool } from '../pipeline/services.js';
import { HINTED_POLICIES, routingHintsFrom, type RoutingHints } from '../workers/policies/index.js';
import { Forwarder } from '../forward/forwarder.js';
import { retryConfigOf } from './config.js';

export interface GatewayContext {
  config: GatewayConfig;
  logger: Logger;
  workers: WorkerManager;
  tokenizers: TokenizerRegistry;
  metrics: GatewayMetrics;
  lifecycle: Lifecycle;
  deps: ApiDeps;
  services: PipelineServices;
  /** Stored responses and conversations (--history-backend). */
  history: HistoryStore;
  /**
   * The services one request runs with: the shared ones, except that worker selection sees the
   * request's routing headers when the policy reads them (consistent_hashing, prefix_hash, manual).
   */
  servicesFor(headers: Headers): PipelineServices;
  /** The routing headers of a request, when the policy reads them (else undefined). */
  hintsFor(headers: Headers): RoutingHints | undefined;
  /** The HTTP-worker path (src/forward/). */
  forwarder: Forwarder;
}

export interface ContextOptions {
  logger?: Logger;
  /** Engine connector; the real ZMQ client by default. */
  connect?: ConnectEngineFn;
  deps?: ApiDeps;
  tokenizers?: TokenizerRegistry;
  random?: () => number;
  /** The history store; by default the one --history-backend names. */
  history?: HistoryStore;
  /** Process/nodejs default metrics (on for the real server, off for unit tests). */
  defaultMetrics?: boolean;
}

export function createGatewayContext(config: GatewayConfig, opts: ContextOptions = {}): GatewayContext {
  const logger = opts.logger ?? createLogger({ level: config.logLevel, json: config.logJson, logDir: config.logDir });
  const tokenizers = opts.tokenizers ?? new InMemoryTokenizerRegistry();
  const deps = opts.deps ?? {};
  let manager: WorkerManager | null = null;
  const metrics = new GatewayMetrics(() => manager?.list() ?? [], { defaultMetrics: opts.defaultMetrics, vllmMetrics: !config.disableVllmMetrics });
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
  const pool = (hints?: RoutingHints): WorkerPool => ({
    pickWorker: (model, tokenIds, needs, exclude) =>
      workers.pickWorker(model, tokenIds, needs, hints, exclude ? (w) => !w.isHttp && !exclude.has(w.id) : undefined),
    modelIds: () => workers.modelIds(),
    resolveModel: (name) => workers.resolveModel(name),
    unavailableReason: (model) => workers.unavailableReason(model),
    tokenizerFailure: (model) => workers.tokenizerFailure(model),
    maxModelLen: (model) => workers.models().find((m) => m.id === model)?.maxModelLen ?? null,
    largestModelLen: (model) => {
      let most: number | null = null;
      for (const w of workers.list()) if (w.modelId === model && w.maxModelLen !== null && (most === null || w.maxModelLen > most)) most = w.maxModelLen;
      return most;
    },
    configuredParsers: (model) => {
      const card = cardParsers(workers.list(), model);
      return { tool: card.tool ?? config.toolCallParser, reasoning: card.reasoning ?? config.reasoningParser };
    },
  });
  const services: PipelineServices = { config, logger, workers: pool(), tokenizers, metrics: metrics.router };
  const hinted = HINTED_POLICIES.has(config.policy);
  const hintsFor = (headers: Headers) => (hinted ? routingHintsFrom(headers, config.routingKeyHeaders) : undefined);
  const forwarder = new Forwarder({
    workers,
    retry: retryConfigOf(config),
    logger,
    requestTimeoutMs: config.requestTimeoutSecs * 1000,
    metrics,
    random: opts.random,
  });
  return {
    config,
    logger,
    workers,
    tokenizers,
    metrics,
    lifecycle: new Lifecycle(),
    deps,
    services,
    history: opts.history ?? createHistoryStore(config, logger),
    servicesFor: (headers) => (hinted ? { ...services, workers: pool(hintsFor(headers)) } : services),
    hintsFor,
    forwarder,
  };
}
