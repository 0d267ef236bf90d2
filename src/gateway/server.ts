/**
 * `startGateway`: the main listener, the metrics listener, startup workers, and graceful shutdown
 * (readiness `draining` → settle → stop accepting → in-flight finish within the grace period →
 * close connections → close engine clients and their sockets).
 */
import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import { type HttpBindings, getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import { closePromptPools } from '../pipeline/prompt-pool/pool.js';
import { startTracing } from '../tracing/tracer.js';
import { fairTurn } from '../util/fair-turn.js';
import { buildApp, buildMetricsApp, buildProbeApp } from './app.js';
import { directFront, tookTurn, type NodeListener } from './direct-front.js';
import type { GatewayConfig } from './config.js';
import type { PodDiscovery } from '../discovery/pod-discovery.js';
import { createGatewayContext, type ContextOptions, type GatewayContext } from './context.js';
import { exposureWarning } from './exposure-warning.js';
import { installRejectionGuard } from './last-resort.js';
import {
  CONNECTIONS_CHECK_INTERVAL_MS,
  FIRST_BYTE_TIMEOUT_MS,
  HEADERS_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  SIDE_LISTENER_CONNECTIONS,
  defaultMaxConnections,
  limitConnections,
  openFilesLimit,
} from './connection-limits.js';
import type { Logger } from '../util/logger.js';
import type { AppEnv } from './middleware/env.js';

type FetchFn = (req: Request, env: HttpBindings) => Response | Promise<Response>;

export interface GatewayHandle {
  readonly ctx: GatewayContext;
  readonly app: Hono<AppEnv>;
  /** Bound ports (useful with port 0 in tests). */
  readonly port: number;
  readonly metricsPort: number;
  /** The --health-check-port listener's bound port, when there is one. */
  readonly probePort: number | null;
  /** Graceful shutdown; idempotent, every call returns the same promise. */
  close(): Promise<void>;
}


/**
 * Idle keep-alive connections are kept this long. Node's default (5 s) closes an idle connection
 * just as a client may be reusing it, and that request then fails with "other side closed"; the
 * SMG gateway (hyper) sets no idle timeout at all. Clients that read the `Keep-Alive: timeout=65`
 * hint (undici, the fetch of Node and of the official SDKs) close their side before it.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Connections the kernel queues until the loop accepts them. Node's default is 511: 4,000 streams
 * opening together while the loop was busy overflowed it (119 got no response head within 38 s,
 * their SYNs dropped and retried after 1, 3, 7... s). Linux clamps it to net.core.somaxconn
 * (4096 by default since 5.4).
 */
const LISTEN_BACKLOG = 8192;

function listen(fetch: FetchFn, host: string, port: number, maxConnections: number, log?: Logger, front?: (app: NodeListener) => NodeListener | null): Promise<Server> {
  // The Node request/response go on as the app's bindings, so streams can write to the socket.
  // A burst of arrivals is spread over event-loop turns (util/fair-turn.ts); a request the direct
  // front handed over has had its turn.
  const handle = (req: Request, env: unknown) => fetch(req, env as HttpBindings);
  const app = getRequestListener((req, env) => {
    const wait = tookTurn((env as HttpBindings).incoming) ? null : fairTurn();
    return wait ? wait.then(() => handle(req, env)) : handle(req, env);
  });
  // As @hono/node-server's createAdaptorServer, with the direct front of the inference routes
  // (direct-front.ts) before the app where there is one.
  const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS }, front?.(app) ?? app);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // The connection cap and the header/request timeouts (connection-limits.ts). Node's header timer
  // starts at a request's first byte, so an idle keep-alive connection is not cut by it.
  limitConnections(server, maxConnections, log);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function boundPort(server: Server): number {
  const a = server.address();
  return typeof a === 'object' && a !== null ? a.port : 0;
}

function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

function closeServer(server: Server, boundMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, boundMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function startGateway(config: GatewayConfig, opts: ContextOptions = {}): Promise<GatewayHandle> {
  const ctx = createGatewayContext(config, { defaultMetrics: true, ...opts });
  const log = ctx.logger;
  installRejectionGuard(log);
  const app = buildApp(ctx);
  // Postgres: connect and create/migrate the schema before serving (an unreachable database is
  // logged and retried by the first request that needs it).
  await ctx.history.start();
  // Before the listener: the first request is already traced.
  const tracing = await startTracing(config, log);

  let metricsHost = config.prometheusHost;
  if (isIP(metricsHost) === 0) {
    log.error(`Invalid prometheus host '${metricsHost}'; falling back to 0.0.0.0`);
    metricsHost = '0.0.0.0';
  }
  const metricsApp = buildMetricsApp(ctx);
  let metricsServer: Server;
  try {
    metricsServer = await listen(metricsApp.fetch, metricsHost, config.prometheusPort, SIDE_LISTENER_CONNECTIONS);
  } catch (err) {
    await ctx.history.close();
    throw new Error(`failed to bind metrics server on ${hostPort(metricsHost, config.prometheusPort)}: ${(err as Error).message}`);
  }
  const metricsPort = boundPort(metricsServer);
  log.info(`Metrics server listening on ${hostPort(metricsHost, metricsPort)} (/metrics)`);

  const filesLimit = openFilesLimit();
  const maxConnections = config.maxConnections ?? defaultMaxConnections(filesLimit);
  let server: Server;
  try {
    // The inference routes' POSTs skip the adapter and Hono when nothing needs them (direct-front.ts).
    server = await listen(app.fetch, config.host, config.port, maxConnections, log, (appListener) => directFront(ctx, appListener));
  } catch (err) {
    await closeServer(metricsServer, 1000);
    await ctx.history.close();
    throw err;
  }
  const port = boundPort(server);
  log.info(`Gateway listening on ${hostPort(config.host, port)} (policy=${config.policy}, workers=${config.workerUrls.length})`);
  log.info(
    `HTTP connections capped at ${maxConnections} (open-files limit ${filesLimit ?? 'unknown'}${config.maxConnections === null ? ', the rest kept for engines, files and threads' : ''}); ` +
      `a silent client is closed after ${FIRST_BYTE_TIMEOUT_MS / 1000}s, headers must arrive within ${HEADERS_TIMEOUT_MS / 1000}s and a whole request within ${REQUEST_TIMEOUT_MS / 1000}s`,
  );
  if (config.maxConnections !== null && filesLimit !== null && config.maxConnections > defaultMaxConnections(filesLimit)) {
    log.warn(
      `--max-connections ${config.maxConnections} leaves fewer than the reserved descriptors of the open-files limit ${filesLimit} for engines: an engine that (re)connects while HTTP connections are exhausted may fail`,
    );
  }
  const exposed = exposureWarning(config.host, config.apiKey);
  if (exposed) log.warn(exposed);

  // SMG's isolated probe listener: /liveness, /readiness and /health only, on the gateway host.
  let probeServer: Server | null = null;
  if (config.healthCheckPort !== null) {
    try {
      probeServer = await listen(buildProbeApp(ctx).fetch, config.host, config.healthCheckPort, SIDE_LISTENER_CONNECTIONS);
    } catch (err) {
      await Promise.all([closeServer(server, 1000), closeServer(metricsServer, 1000), ctx.history.close()]);
      throw new Error(`failed to bind probe listener on ${hostPort(config.host, config.healthCheckPort)}: ${(err as Error).message}`);
    }
    log.info(`Probe listener started on ${hostPort(config.host, boundPort(probeServer))} (--health-check-port ${config.healthCheckPort})`);
  }

  // Startup workers register in the background; HTTP serves meanwhile.
  ctx.workers.addStartupWorkers(config.workerUrls, config.backend, config.zmqEngineCount);

  // Kubernetes pods matching --selector become HTTP workers as they turn Ready (src/discovery/).
  let discovery: PodDiscovery | null = null;
  if (config.serviceDiscovery) {
    try {
      // Loaded only when asked for: the Kubernetes client is ~1,000 modules, which every gateway
      // would otherwise read at start (and, read all at once, can exhaust a low open-files limit).
      const { PodDiscovery } = await import('../discovery/pod-discovery.js');
      discovery = new PodDiscovery(ctx.workers, log.child({ component: 'discovery' }), {
        selector: config.selector,
        port: config.serviceDiscoveryPort,
        namespace: config.serviceDiscoveryNamespace,
        modelIdFrom: config.modelIdFrom,
      });
    } catch (err) {
      await Promise.all([closeServer(server, 1000), closeServer(metricsServer, 1000)]);
      throw new Error(`service discovery cannot start: ${(err as Error).message}`);
    }
    void discovery.start();
  }

  let closing: Promise<void> | null = null;
  const shutdown = async () => {
    ctx.lifecycle.startDraining();
    const graceMs = config.shutdownGracePeriodSecs * 1000;
    const settleMs = Math.min(graceMs / 2, config.drainSettleSecs * 1000);
    log.info(`Shutting down: /readiness reports draining; in-flight requests get up to ${config.shutdownGracePeriodSecs}s`);
    // The settle lets load balancers see `draining` while requests finish; with nothing in
    // flight there is nothing to wait for (new requests are refused 503 meanwhile).
    if (settleMs > 0) await ctx.lifecycle.waitIdle(settleMs);
    const closed = closeServer(server, Math.max(graceMs - settleMs, 0) + 1000);
    const idle = await ctx.lifecycle.waitIdle(Math.max(graceMs - settleMs, 0));
    if (!idle) log.warn(`Grace period over with ${ctx.lifecycle.inFlight} request(s) still in flight; closing their connections`);
    server.closeAllConnections();
    await closed;
    await discovery?.stop();
    await ctx.workers.close();
    await ctx.history.close();
    // The models' prompt threads: no request needs them any more.
    await closePromptPools();
    // The last requests' spans leave before the process does.
    await tracing?.shutdown();
    metricsServer.closeAllConnections();
    await closeServer(metricsServer, 1000);
    if (probeServer) {
      probeServer.closeAllConnections();
      await closeServer(probeServer, 1000);
    }
    log.info('Gateway stopped');
  };

  return {
    ctx,
    app,
    port,
    metricsPort,
    probePort: probeServer ? boundPort(probeServer) : null,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}
