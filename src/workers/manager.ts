/**
 * The worker registry and everything that changes it: background registration jobs, the probe
 * loop and state machine, connect/dead signals from engine clients, removal with drain, and
 * worker selection for requests.
 */
import { randomUUID } from 'node:crypto';
import type { EngineError } from '../engine/client-types.js';
import { deathCauseOf } from '../engine/engine-death.js';
import type { Logger } from '../util/logger.js';
import type { ConnectEngineFn } from './connect.js';
import { EngineDeathFeed, type EngineDeathListener } from './engine-deaths.js';
import { JobTracker, workflowError } from './jobs.js';
import { ProbeScheduler } from './prober.js';
import { RegistrationError, resolveHealth, resolveModelNames, resolveWorker, type RegistrationEnv } from './registration.js';
import { ownNames } from './http-registration.js';
import type { RequestNeeds } from './capabilities.js';
import { WorkerSelector } from './selector.js';
import { applyProbe, freshCounters } from './state-machine.js';
import { TokenizerAutoloader, type TokenizerLoader, type TokenizerRegistry } from './tokenizer-registry.js';
import { defaultSpec, type JobType, type PolicyName, type WorkerSpec, type WorkersConfig } from './types.js';
import type { WorkerPatch } from './worker-spec.js';
import { errorView, Worker, type WorkerEvents } from './worker.js';
import type { RoutingHints } from './policies/index.js';
import { breakerFor, type BreakerState } from './circuit-breaker.js';
import { checkHttpWorker } from './http-probe.js';

export interface WorkerMetricsSink {
  healthCheck(worker: Worker, ok: boolean): void;
  selected(worker: Worker, model: string, policy: PolicyName): void;
  removed(worker: Worker): void;
  /** smg_worker_errors_total: a failed handshake, a refused socket path, an engine death. */
  workerError(worker: Worker, errorType: string): void;
  /** smg_worker_cb_transitions_total / smg_worker_cb_outcomes_total of an HTTP worker's breaker. */
  breakerTransition?(worker: Worker, from: BreakerState, to: BreakerState): void;
  breakerOutcome?(worker: Worker, outcome: 'success' | 'failure'): void;
}

export interface WorkerManagerOptions {
  config: WorkersConfig;
  logger: Logger;
  connect: ConnectEngineFn;
  tokenizers: TokenizerRegistry;
  loadTokenizer?: TokenizerLoader | null;
  metrics?: WorkerMetricsSink;
  random?: () => number;
  newId?: () => string;
}

export type SubmitResult =
  | { ok: true; id: string }
  | { ok: false; code: 'WORKER_ALREADY_EXISTS' | 'WORKER_CREATE_IN_PROGRESS'; id: string };

/** One worker that does not serve requests, as /readiness lists it. */
export interface UnreadyWorker {
  id: string;
  url: string;
  status: string;
  reason: string;
  last_error: { message: string; at: string } | null;
}

export type Readiness =
  | { ready: true; healthyWorkers: number; totalWorkers: number }
  | {
      ready: false;
      /** SMG's texts, plus `tokenizer failed: <error>` when a ready worker's tokenizer cannot load. */
      reason: string;
      /** Every registered worker that does not serve, with why. */
      workers: UnreadyWorker[];
    };

/** A served model as /v1/models lists it. */
export interface ServedModel {
  id: string;
  /** Every name a request may use, canonical first. */
  names: readonly string[];
  /** Unix seconds of the first registration of a worker serving it. */
  created: number;
  /** Smallest max_model_len the model's connected engines reported; null before a handshake. */
  maxModelLen: number | null;
  /** The model path / tokenizer source (vLLM's `root`). */
  root: string | null;
}


const DRAIN_POLL_MS = 50;

export class WorkerManager {
  readonly jobs: JobTracker;
  private readonly workers = new Map<string, Worker>();
  /** Ids reserved by queued AddWorker jobs (GET shows a placeholder; not listed). */
  private readonly registering = new Map<string, WorkerSpec>();
  private readonly removing = new Set<string>();
  /** Add/update jobs run one after another so startup duplicates resolve in order. */
  private chain: Promise<void> = Promise.resolve();
  private readonly background = new Set<Promise<void>>();
  private readonly scheduler: ProbeScheduler;
  private readonly selector: WorkerSelector;
  private readonly autoload: TokenizerAutoloader;
  private readonly events: WorkerEvents;
  private readonly deaths = new EngineDeathFeed();
  /** HTTP workers with a health probe in flight. */
  private readonly httpProbing = new Set<string>();
  private closed = false;

  constructor(private readonly opts: WorkerManagerOptions) {
    this.jobs = new JobTracker(opts.logger);
    this.scheduler = new ProbeScheduler((w) => this.runProbe(w));
    this.selector = new WorkerSelector(opts.config.policy, opts.logger, opts.random, opts.config.policyOptions);
    this.autoload = new TokenizerAutoloader(opts.tokenizers, opts.loadTokenizer ?? null, opts.logger, (modelId) =>
      this.syncTokenizerState(modelId),
    );
    this.events = {
      onConnected: (w, rev) => this.onConnected(w, rev),
      onDead: (w, err) => this.onDead(w, err),
      onError: (w, type) => this.opts.metrics?.workerError(w, type),
    };
  }

  get config(): WorkersConfig {
    return this.opts.config;
  }

  /** Registered workers in registration order (draining ones included). */
  list(): Worker[] {
    return [...this.workers.values()];
  }
  get(id: string): Worker | undefined {
    return this.workers.get(id);
  }
  byUrl(url: string): Worker | undefined {
    for (const w of this.workers.values()) if (w.url === url) return w;
    return undefined;
  }
  /** The spec of a worker whose AddWorker job has not finished. */
  registeringSpec(id: string): WorkerSpec | undefined {
    return this.registering.get(id);
  }

  // ---- jobs -------------------------------------------------------------------------------

  /** POST /workers after the synchronous URL checks. */
  submitAdd(spec: WorkerSpec): SubmitResult {
    const existing = this.byUrl(spec.url);
    if (existing) return { ok: false, code: 'WORKER_ALREADY_EXISTS', id: existing.id };
    for (const [id, s] of this.registering) {
      if (s.url === spec.url) return { ok: false, code: 'WORKER_CREATE_IN_PROGRESS', id };
    }
    return { ok: true, id: this.enqueueAdd(spec) };
  }

  /** Startup --worker-urls: runtime pinned by --backend, dp_size from --zmq-engine-count (ipc only). */
  addStartupWorkers(urls: readonly string[], backend: string | null, zmqEngineCount: number | null): string[] {
    return urls.map((url) => {
      const spec = defaultSpec(url);
      if (url.startsWith('ipc://')) {
        if (backend === 'vllm' || backend === 'tokenspeed') spec.runtimeType = backend;
        if (zmqEngineCount !== null && zmqEngineCount > 1) spec.dpSize = zmqEngineCount;
      }
      return this.enqueueAdd(spec);
    });
  }

  submitRemove(id: string): boolean {
    const w = this.workers.get(id);
    if (!w) return false;
    if (!this.removing.has(id)) {
      this.jobs.queued(id, 'RemoveWorker', w.url);
      this.spawn(this.runRemove(w));
    }
    return true;
  }

  submitPatch(id: string, patch: WorkerPatch): boolean {
    const w = this.workers.get(id);
    if (!w) return false;
    this.enqueue(id, 'UpdateWorker', w.url, () => {
      const spec: WorkerSpec = {
        ...w.identity.spec,
        priority: patch.priority ?? w.identity.spec.priority,
        cost: patch.cost ?? w.identity.spec.cost,
        labels: patch.labels ? { ...w.identity.spec.labels, ...patch.labels } : w.identity.spec.labels,
        apiKey: patch.apiKey ?? w.identity.spec.apiKey,
        health: patch.health ? { ...w.identity.spec.health, ...patch.health } : w.identity.spec.health,
      };
      // An HTTP worker is named by its spec or its upstream, never by the gateway's --model-path.
      const names = w.isHttp ? ownNames(spec) : resolveModelNames(spec, this.config);
      const modelId = names[0] ?? w.modelId;
      const modelNames = names.length > 0 ? names : w.identity.modelNames;
      // Properties only: runtime, engine count and handshake address stay, so the connection does.
      w.updateIdentity({ ...w.identity, spec, modelId, modelNames, health: resolveHealth(spec, this.config) });
      this.ensureTokenizer(w);
    });
    return true;
  }

  /** PUT with the same URL: re-validated like a create; the connection survives unless the transport changed. */
  submitReplace(id: string, spec: WorkerSpec): boolean {
    const w = this.workers.get(id);
    if (!w) return false;
    this.enqueue(id, 'UpdateWorker', w.url, () => {
      let next = resolveWorker(spec, id, this.registrationEnv(() => false));
      // A replaced HTTP worker whose spec names no model keeps the one its upstream reported.
      if (w.isHttp && next.modelId === '') next = { ...next, modelId: w.modelId, modelNames: w.identity.modelNames };
      const { transportReset } = w.updateIdentity(next);
      if (transportReset) {
        w.status = 'pending';
        w.pendingSince = Date.now();
        w.counters = freshCounters();
        this.scheduler.schedule(w, 0);
      }
      this.ensureTokenizer(w);
    });
    return true;
  }

  // ---- selection and readiness ------------------------------------------------------------

  /**
   * The worker a request should go to, or null when no ready worker serves `model`. Workers whose
   * runtime can serve `needs` are preferred (src/workers/capabilities.ts); `hints` are the
   * request's routing headers, read by the hashing and sticky policies. Throws RoutingError when a
   * policy refuses the request (X-SMG-Target-Worker naming no available worker).
   */
  pickWorker(
    model: string | null,
    tokenIds: readonly number[] = [],
    needs?: RequestNeeds,
    hints?: RoutingHints,
    accept: (w: Worker) => boolean = isZmq,
  ): Worker | null {
    const w = this.selector.pick(this.workers.values(), model, tokenIds, needs, hints, accept);
    if (w) this.opts.metrics?.selected(w, model ?? w.modelId, this.selector.policyName);
    return w;
  }

  /**
   * The canonical model id `name` refers to (an id, a served name or a card alias), or null. The
   * first registered worker that answers to the name decides.
   */
  resolveModel(name: string): string | null {
    for (const w of this.workers.values()) if (w.modelId === name) return name;
    for (const w of this.workers.values()) if (w.identity.modelNames.includes(name)) return w.modelId;
    return null;
  }

  /** The error of the last failed tokenizer load for `model`, until one succeeds. */
  tokenizerFailure(model: string): string | null {
    return this.autoload.failure(model)?.message ?? null;
  }

  /** Why no worker of `model` takes requests now, one clause per worker (for the 503 message). */
  unavailableReason(model: string): string {
    const parts = this.list()
      .filter((w) => w.modelId === model)
      .map((w) => `worker ${w.url} is ${w.status}: ${w.notReadyReason() ?? 'ready'}`);
    return parts.length > 0 ? parts.join('; ') : 'no worker is registered';
  }

  readiness(): Readiness {
    const all = this.list();
    const ready = all.filter((w) => w.isReady);
    const gated = !this.config.disableTokenizerAutoload;
    const unready = (): UnreadyWorker[] =>
      all.flatMap((w) => {
        let reason = w.notReadyReason();
        // Ready, but its model's tokenizer is still loading: requests would get 503s too.
        if (reason === null && gated && !w.isHttp && !this.opts.tokenizers.has(w.modelId)) {
          reason = `tokenizer not yet registered (loading from ${w.identity.tokenizerSource ?? w.modelId})`;
        }
        if (reason === null) return [];
        return [{ id: w.id, url: w.url, status: w.status, reason, last_error: errorView(w.lastError) }];
      });
    if (ready.length === 0) return { ready: false, reason: 'insufficient healthy workers', workers: unready() };
    if (gated) {
      const missing = ready.find((w) => !w.isHttp && !this.opts.tokenizers.has(w.modelId));
      if (missing) {
        const failure = this.autoload.failure(missing.modelId);
        const reason = failure ? `tokenizer failed: ${failure.message}` : 'tokenizer not yet registered';
        return { ready: false, reason, workers: unready() };
      }
    }
    return { ready: true, healthyWorkers: ready.length, totalWorkers: all.length };
  }

  /**
   * Every engine death of a registered worker, after the registry reacted (worker out of `ready`,
   * sockets rebinding). For the engine supervisor; returns the unsubscribe function.
   */
  onEngineDeath(listener: EngineDeathListener): () => void {
    return this.deaths.subscribe(listener);
  }

  /** Model ids of all registered workers (pending included), de-duplicated, in order. */
  modelIds(): string[] {
    return [...new Set(this.list().map((w) => w.modelId))].filter((id) => id !== '');
  }

  /** Whether any HTTP worker is registered (the request path forks only then). */
  hasHttpWorkers(): boolean {
    for (const w of this.workers.values()) if (w.isHttp) return true;
    return false;
  }

  /** Every served model with what /v1/models reports about it, in registration order. */
  models(): ServedModel[] {
    const byId = new Map<string, ServedModel>();
    for (const w of this.list()) {
      if (w.modelId === '') continue;
      const card = w.upstreamModels?.find((m) => m.id === w.modelId);
      const created = typeof card?.created === 'number' ? card.created : Math.floor(w.registeredAt / 1000);
      const len = w.isHttp ? (typeof card?.max_model_len === 'number' ? card.max_model_len : null) : w.maxModelLen;
      const m = byId.get(w.modelId);
      if (!m) {
        byId.set(w.modelId, {
          id: w.modelId,
          names: w.identity.modelNames,
          created,
          maxModelLen: len,
          root: typeof card?.root === 'string' ? card.root : w.identity.tokenizerSource,
        });
        continue;
      }
      m.created = Math.min(m.created, created);
      if (len !== null) m.maxModelLen = m.maxModelLen === null ? len : Math.min(m.maxModelLen, len);
      m.names = [...new Set([...m.names, ...w.identity.modelNames])];
    }
    return [...byId.values()];
  }

  /** Resolves once queued jobs and removals have run (tests, shutdown). */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [this.chain, ...this.background];
      await Promise.allSettled(pending);
      if ([this.chain, ...this.background].every((p) => pending.includes(p))) return;
    }
  }

  /** Stops probing and closes every engine client (sockets and socket files released). */
  async close(): Promise<void> {
    this.closed = true;
    this.scheduler.stop();
    await Promise.allSettled([this.chain, ...this.background]);
    await Promise.allSettled(this.list().map((w) => w.close()));
  }

  // ---- internals --------------------------------------------------------------------------

  private enqueueAdd(spec: WorkerSpec): string {
    const id = this.opts.newId ? this.opts.newId() : randomUUID();
    this.registering.set(id, spec);
    this.enqueue(id, 'AddWorker', spec.url, () => {
      try {
        const identity = resolveWorker(spec, id, this.registrationEnv((url) => this.byUrl(url) !== undefined));
        const child = this.opts.logger.child({ worker: spec.url });
        const w = new Worker(identity, {
          connect: this.opts.connect,
          logger: child,
          stageTimeoutMs: this.config.zmqStageTimeoutSecs * 1000,
          silenceTimeoutMs: this.config.zmqSilenceTimeoutSecs * 1000,
          events: this.events,
        });
        this.workers.set(id, w);
        const aliases = identity.modelNames.length > 1 ? `, also served as ${identity.modelNames.slice(1).join(', ')}` : '';
        if (w.isHttp) {
          w.breaker = breakerFor(w.url, this.config.circuitBreaker, child, {
            transition: (from, to) => this.opts.metrics?.breakerTransition?.(w, from, to),
            outcome: (o) => this.opts.metrics?.breakerOutcome?.(w, o),
          });
          child.info(`Registered HTTP worker ${w.url} (id=${id}, model=${w.modelId || 'from its /v1/models'}${aliases})`);
        } else {
          child.info(
            `Registered ZMQ worker ${w.url} (id=${id}, runtime=${w.runtime}, model=${w.modelId}${aliases}, engines=${identity.engineCount})`,
          );
        }
        this.selector.workerAdded(w);
        this.ensureTokenizer(w);
        // The first probe starts the handshake driver, so the sockets are bound straight away.
        this.scheduler.schedule(w, 0);
      } finally {
        this.registering.delete(id);
      }
    });
    return id;
  }

  private enqueue(id: string, type: JobType, url: string, job: () => void): void {
    this.jobs.queued(id, type, url);
    this.chain = this.chain.then(() => {
      if (this.closed) return;
      this.jobs.processing(id);
      try {
        job();
        this.jobs.succeeded(id);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        const text = err instanceof RegistrationError ? workflowError('create_local_worker', 'create_worker', msg) : msg;
        this.jobs.failed(id, type, url, text);
      }
    });
  }

  private registrationEnv(urlTaken: (url: string) => boolean): RegistrationEnv {
    return {
      config: this.config,
      logger: this.opts.logger,
      urlTaken,
      zmqPeers: () => this.list().filter((w) => !w.isHttp).map((w) => ({ url: w.url, handshakeAddress: w.identity.handshakeAddress })),
    };
  }

  /** Copies the model's tokenizer failure (or its recovery) onto the model's workers. */
  private syncTokenizerState(modelId: string): void {
    const failure = this.autoload.failure(modelId);
    for (const w of this.workers.values()) if (w.modelId === modelId) w.tokenizerFailure = failure?.message ?? null;
  }

  private ensureTokenizer(w: Worker): void {
    // An HTTP worker tokenizes on its own host; the gateway only forwards to it.
    if (this.config.disableTokenizerAutoload || w.isHttp) return;
    w.tokenizerFailure = this.autoload.failure(w.modelId)?.message ?? null;
    this.autoload.ensure({
      modelId: w.modelId,
      source: w.identity.tokenizerSource ?? w.modelId,
      chatTemplate: this.config.chatTemplate,
      chatTemplateContentFormat: this.config.chatTemplateContentFormat ?? 'auto',
    });
  }

  private spawn(p: Promise<void>): void {
    this.background.add(p);
    void p.finally(() => this.background.delete(p));
  }


  /**
   * An HTTP worker's probe: GET its health endpoint; while it has no model yet, its /v1/models
   * too. The first healthy probe promotes a pending worker (as a handshake does a ZMQ one); a
   * failed HTTP worker keeps being probed, so a host that comes back is used again.
   */
  private async runHttpProbe(w: Worker): Promise<void> {
    // One probe at a time per worker: failed requests ask for early probes, often in bursts.
    if (this.httpProbing.has(w.id)) return;
    this.httpProbing.add(w.id);
    try {
      await this.httpProbeOnce(w);
    } finally {
      this.httpProbing.delete(w.id);
    }
  }

  private async httpProbeOnce(w: Worker): Promise<void> {
    const { health } = w.identity;
    const healthOff = this.config.disableHealthCheck || w.identity.spec.health.disable_health_check === true;
    const result = await checkHttpWorker(w, healthOff ? null : this.config.healthCheckEndpoint, this.opts.logger.child({ worker: w.url }));
    if (this.closed || this.workers.get(w.id) !== w || w.status === 'draining') return;
    this.opts.metrics?.healthCheck(w, result.ok);
    const prev = w.status;
    if (!result.ok) w.lastError = { message: result.error ?? 'health probe failed', at: Date.now() };
    if (result.ok && (prev === 'pending' || prev === 'failed')) {
      w.status = 'ready';
      w.counters = freshCounters();
    } else {
      const next = applyProbe(prev, w.counters, result.ok, health);
      w.status = next.status;
      w.counters = next.counters;
    }
    if (prev !== w.status) this.logTransition(w, prev);
    // Health checks off (--disable-health-check, or the spec's): once named, the worker stays
    // ready and only its circuit breaker takes it out of selection.
    if (w.status === 'ready' && healthOff) return;
    if (w.status === 'failed' && this.config.removeUnhealthyWorkers) {
      this.opts.logger.child({ worker: w.url }).warn('Removing failed worker from registry');
      this.submitRemove(w.id);
      return;
    }
    const interval =
      w.status === 'pending' ? Math.min(health.intervalSecs, this.config.startupCheckIntervalSecs) : health.intervalSecs;
    this.scheduler.schedule(w, interval * 1000);
  }

  /** A request could not reach an HTTP worker: probe it now rather than at the next interval. */
  probeSoon(w: Worker): void {
    if (!w.isHttp || this.workers.get(w.id) !== w || w.status === 'draining') return;
    if (this.config.disableHealthCheck || w.identity.spec.health.disable_health_check === true) return;
    this.scheduler.scheduleSooner(w, 0);
  }

  private runProbe(w: Worker): void {
    if (this.closed || this.workers.get(w.id) !== w || w.status === 'draining') return;
    if (w.isHttp) {
      void this.runHttpProbe(w);
      return;
    }
    const outcome = w.probe();
    const ok = outcome === 'alive';
    this.opts.metrics?.healthCheck(w, ok);
    const prev = w.status;
    const next = applyProbe(prev, w.counters, ok, w.identity.health);
    w.status = next.status;
    w.counters = next.counters;
    const startupMs = this.config.startupTimeoutSecs * 1000;
    if (w.status === 'pending' && Date.now() - w.pendingSince >= startupMs) {
      w.status = 'failed';
      w.lastError = {
        message: `no handshake within ${this.config.startupTimeoutSecs} s of registration (--worker-startup-timeout-secs)`,
        at: Date.now(),
      };
    } else if (w.status === 'failed' && prev !== 'failed' && w.lastError === null) {
      w.lastError = { message: `no handshake after ${w.counters.pendingProbes} health probes`, at: Date.now() };
    }
    if (prev !== next.status) this.logTransition(w, prev);
    if (!ok) this.ensureTokenizer(w);
    if (w.status === 'failed') {
      // Failed leaves the probe schedule; only a handshake already in flight can promote it.
      if (this.config.removeUnhealthyWorkers) {
        this.opts.logger.child({ worker: w.url }).warn('Removing failed worker from registry');
        this.submitRemove(w.id);
      }
      return;
    }
    // After an eviction, rebind promptly instead of waiting a full interval.
    const interval =
      w.status === 'pending'
        ? Math.min(w.identity.health.intervalSecs, this.config.startupCheckIntervalSecs)
        : w.identity.health.intervalSecs;
    const delay = outcome === 'evicted' ? this.config.deadReprobeMs : interval * 1000;
    this.scheduler.schedule(w, delay);
  }

  private onConnected(w: Worker, revision: number): void {
    if (this.closed || this.workers.get(w.id) !== w || w.revision !== revision || w.status === 'draining') return;
    const prev = w.status;
    w.status = 'ready';
    w.counters = freshCounters();
    this.opts.logger.child({ worker: w.url }).info(`ZMQ handshake completed for worker ${w.url} (engines=${w.identity.engineCount}); worker is ready`);
    if (prev !== 'ready') this.logTransition(w, prev);
    this.scheduler.schedule(w, w.identity.health.intervalSecs * 1000);
  }

  private onDead(w: Worker, err: EngineError): void {
    if (this.closed || this.workers.get(w.id) !== w) return;
    const log = this.opts.logger.child({ worker: w.url });
    if (w.status === 'draining') {
      log.warn(`ZMQ engine for ${w.url} died (${err.message}) while the worker drains; not rebinding`);
    } else {
      log.warn(`ZMQ engine for ${w.url} died (${err.message}); evicting the dead client and rebinding now`);
      this.opts.metrics?.workerError(w, `engine_${deathCauseOf(err)}`);
      // Ours, not SMG's: stop routing to a dead engine now rather than after `failure_threshold` probes.
      if (w.status === 'ready') {
        w.status = 'not_ready';
        this.logTransition(w, 'ready');
      }
      // Ours too: SMG evicts at the next probe and rebinds at the one after, so a restarted engine
      // waits two probe intervals. Rebinding now keeps the handshake listener up while it restarts.
      w.rebindAfterDeath();
      // The probe still runs soon: it counts the failure and retries a driver that failed to bind.
      this.scheduler.scheduleSooner(w, this.config.deadReprobeMs);
    }
    this.deaths.emit(w.id, w.url, err, log);
  }

  private async runRemove(w: Worker): Promise<void> {
    this.removing.add(w.id);
    this.jobs.processing(w.id);
    const wasReady = w.status === 'ready';
    w.status = 'draining';
    this.scheduler.cancel(w);
    if (wasReady && w.identity.health.drainSettleSecs > 0) {
      // Draining ends as soon as our in-flight requests finish, bounded by the drain timeout.
      const deadline = Date.now() + Math.max(w.identity.health.drainSettleSecs, this.config.drainTimeoutSecs) * 1000;
      while (w.load > 0 && Date.now() < deadline && !this.closed) await sleep(DRAIN_POLL_MS);
    }
    await w.close();
    this.workers.delete(w.id);
    this.removing.delete(w.id);
    this.selector.workerRemoved(w);
    this.opts.metrics?.removed(w);
    this.jobs.succeeded(w.id);
    this.opts.logger.child({ worker: w.url }).info(`Removed worker ${w.url} (id=${w.id})`);
  }

  private logTransition(w: Worker, prev: string): void {
    this.opts.logger.child({ worker: w.url }).info(`Worker ${w.url} status changed: ${prev} -> ${w.status}`);
  }
}

function isZmq(w: Worker): boolean {
  return !w.isHttp;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
