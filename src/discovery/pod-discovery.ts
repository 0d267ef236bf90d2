/**
 * Kubernetes pod discovery (SMG's --service-discovery): an informer (list + watch through
 * @kubernetes/client-node) keeps the set of matching pods; after every change, and on a timer,
 * the desired HTTP workers (one per serving pod and port) are reconciled with the ones discovery
 * added: a new one is registered, one whose pod stopped serving (NotReady, terminating, deleted)
 * is drained and removed. Workers added by hand (flags, POST /workers) are never touched, even
 * at a URL a pod also serves.
 *
 * A dropped watch reaches the informer's `error` handler (`Premature close`) and the informer is
 * restarted from there; a `410 Gone` makes it re-list by itself (client-node cache.js).
 */
import { CoreV1Api, KubeConfig, makeInformer, type Informer, type ObjectCache, type V1Pod } from '@kubernetes/client-node';
import type { Logger } from '../util/logger.js';
import type { WorkerManager } from '../workers/manager.js';
import { defaultSpec } from '../workers/types.js';
import { labelSelector, parseModelIdSource, podKey, podModelId, podPorts, podServes, podWorkerUrls, type ModelIdSource } from './pod-workers.js';

export interface DiscoveryOptions {
  selector: readonly string[];
  port: number;
  namespace: string | null;
  modelIdFrom: string | null;
  /** Full reconcile period (ms); events reconcile at once. */
  reconcileMs?: number;
  /** Delay before restarting a failed watch or list (ms). */
  restartMs?: number;
  /** Tests pass a KubeConfig; else in-cluster config, or KUBECONFIG / ~/.kube/config. */
  kubeConfig?: KubeConfig;
}

interface Desired {
  pod: string;
  modelId: string | null;
}

const DEFAULT_RECONCILE_MS = 30_000;
const DEFAULT_RESTART_MS = 1_000;

export function loadKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  // In a pod without KUBECONFIG: the service account (what the RBAC in docs/deploy grants).
  if (process.env.KUBERNETES_SERVICE_HOST && !process.env.KUBECONFIG) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

export class PodDiscovery {
  private readonly informer: Informer<V1Pod> & ObjectCache<V1Pod>;
  private readonly modelSource: ModelIdSource | null;
  /** URL → worker id of the workers discovery registered. */
  private readonly owned = new Map<string, string>();
  private readonly warned = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private pending = false;
  private stopped = false;

  constructor(
    private readonly workers: WorkerManager,
    private readonly logger: Logger,
    private readonly opts: DiscoveryOptions,
  ) {
    const kc = opts.kubeConfig ?? loadKubeConfig();
    const api = kc.makeApiClient(CoreV1Api);
    const selector = opts.selector.length > 0 ? labelSelector(opts.selector) : undefined;
    const ns = opts.namespace;
    const path = ns ? `/api/v1/namespaces/${encodeURIComponent(ns)}/pods` : '/api/v1/pods';
    const list = ns
      ? () => api.listNamespacedPod({ namespace: ns, labelSelector: selector })
      : () => api.listPodForAllNamespaces({ labelSelector: selector });
    this.informer = makeInformer<V1Pod>(kc, path, list, selector);
    this.modelSource = parseModelIdSource(opts.modelIdFrom);
    for (const verb of ['add', 'update', 'delete'] as const) this.informer.on(verb, () => this.schedule());
    this.informer.on('connect', () => this.logger.debug('Kubernetes pod watch (re)connected'));
    this.informer.on('error', (err: unknown) => this.onWatchError(err));
  }

  async start(): Promise<void> {
    this.logger.info(
      `Starting K8s service discovery | selector: '${labelSelector(this.opts.selector)}' | namespace: ${this.opts.namespace ?? 'all'} | port: ${this.opts.port}`,
    );
    this.timer = setInterval(() => this.reconcile(), this.opts.reconcileMs ?? DEFAULT_RECONCILE_MS);
    this.timer.unref?.();
    await this.informer.start().catch((err: unknown) => this.onWatchError(err));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.informer.stop().catch(() => {});
  }

  /** URLs of the workers discovery owns (for tests and logs). */
  ownedUrls(): string[] {
    return [...this.owned.keys()];
  }

  private onWatchError(err: unknown): void {
    if (this.stopped) return;
    const msg = err instanceof Error ? err.message : String(err);
    this.logger.warn(`Kubernetes pod watch failed (${msg}); restarting it in ${this.opts.restartMs ?? DEFAULT_RESTART_MS} ms`);
    if (this.restartTimer) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopped) return;
      void this.informer.start().catch((e: unknown) => this.onWatchError(e));
    }, this.opts.restartMs ?? DEFAULT_RESTART_MS);
    this.restartTimer.unref?.();
  }

  /** Coalesces a burst of events into one reconcile. */
  private schedule(): void {
    if (this.pending || this.stopped) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      this.reconcile();
    });
  }

  private desired(): Map<string, Desired> {
    const out = new Map<string, Desired>();
    for (const pod of this.informer.list()) {
      if (!podServes(pod)) continue;
      const { ports, warning } = podPorts(pod, this.opts.port);
      if (warning !== null && !this.warned.has(warning)) {
        this.warned.add(warning);
        this.logger.warn(warning);
      }
      const modelId = podModelId(pod, this.modelSource);
      for (const url of podWorkerUrls(pod, ports)) out.set(url, { pod: podKey(pod), modelId });
    }
    return out;
  }

  private reconcile(): void {
    if (this.stopped) return;
    const want = this.desired();
    for (const [url, id] of this.owned) {
      const w = this.workers.get(id);
      if (!w) {
        // Removed behind our back (DELETE /workers) or its removal finished: forget it.
        this.owned.delete(url);
        continue;
      }
      if (want.has(url) || w.status === 'draining') continue;
      this.logger.info(`Pod for worker ${url} no longer serves (NotReady, terminating or deleted): draining and removing it`);
      this.workers.submitRemove(id);
    }
    for (const [url, d] of want) {
      if (this.owned.has(url)) continue;
      // A worker someone added by hand stays theirs; a draining one is re-added once it is gone.
      if (this.workers.byUrl(url)) continue;
      const spec = defaultSpec(url);
      spec.labels = { discovered_by: 'kubernetes', pod: d.pod };
      if (d.modelId !== null) spec.modelId = d.modelId;
      const r = this.workers.submitAdd(spec);
      if (r.ok) {
        this.owned.set(url, r.id);
        this.logger.info(`Discovered worker ${url} (pod ${d.pod}${d.modelId ? `, model ${d.modelId}` : ''})`);
      }
    }
  }
}
