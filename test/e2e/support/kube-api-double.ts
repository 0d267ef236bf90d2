/**
 * A Kubernetes API server double that speaks the pod list/watch protocol the way the real one
 * does, for the discovery tests: `GET /api/v1/pods` and `/api/v1/namespaces/<ns>/pods` with a
 * `labelSelector` (equality terms), lists carrying a `resourceVersion`, and `?watch=true` streams
 * of newline-delimited JSON events (ADDED / MODIFIED / DELETED / BOOKMARK) sent chunked, resumed
 * from the client's `resourceVersion`. A version older than the compaction floor gets the real
 * server's answer: an `ERROR` event with a 410 `Status` (`Expired`), then the stream ends. The
 * test drives it: put or delete pods, drop every watch connection, expire history, send bookmarks.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PodShape {
  name: string;
  namespace?: string;
  ip: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  phase?: string;
  ready?: boolean;
  deleting?: boolean;
}

type Pod = Record<string, unknown> & { metadata: { name: string; namespace: string; labels: Record<string, string>; resourceVersion?: string; [k: string]: unknown } };

interface Watcher {
  res: ServerResponse;
  namespace: string | null;
  selector: Array<[string, string]>;
}

export function podObject(p: PodShape): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: p.name,
      namespace: p.namespace ?? 'default',
      uid: `uid-${p.namespace ?? 'default'}-${p.name}`,
      labels: p.labels ?? {},
      ...(p.annotations ? { annotations: p.annotations } : {}),
      ...(p.deleting ? { deletionTimestamp: new Date().toISOString() } : {}),
    },
    spec: { containers: [{ name: 'smg', image: 'smg' }] },
    status: {
      phase: p.phase ?? 'Running',
      podIP: p.ip,
      conditions: [{ type: 'Ready', status: p.ready === false ? 'False' : 'True' }],
    },
  };
}

export class KubeApiDouble {
  private readonly pods = new Map<string, Pod>();
  private readonly history: Array<{ rv: number; type: string; pod: Pod }> = [];
  private readonly watchers = new Set<Watcher>();
  private rv = 1000;
  /** Watches resuming from a version below this get 410 Gone. */
  private floor = 0;
  lists = 0;
  watches = 0;
  gone = 0;
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.res.destroy();
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  /** A kubeconfig for the double (plain HTTP needs insecure-skip-tls-verify: see ecosystem.md). */
  async kubeconfig(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'smg-kube-'));
    const file = join(dir, 'config');
    await writeFile(
      file,
      [
        'apiVersion: v1', 'kind: Config', 'current-context: double',
        'clusters:', '- name: double', '  cluster:', `    server: ${this.url}`, '    insecure-skip-tls-verify: true',
        'users:', '- name: tester', '  user:', '    token: double-token',
        'contexts:', '- name: double', '  context:', '    cluster: double', '    user: tester',
        '',
      ].join('\n'),
    );
    return file;
  }

  /** Adds or replaces a pod (ADDED or MODIFIED). */
  put(shape: PodShape): void {
    const pod = podObject(shape);
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    this.emit(this.pods.has(key) ? 'MODIFIED' : 'ADDED', pod);
    this.pods.set(key, pod);
  }

  delete(name: string, namespace = 'default'): void {
    const key = `${namespace}/${name}`;
    const pod = this.pods.get(key);
    if (!pod) return;
    this.pods.delete(key);
    this.emit('DELETED', structuredClone(pod));
  }

  /** Every open watch connection is cut mid-stream (an API server restart, a load balancer). */
  dropWatches(): void {
    for (const w of this.watchers) w.res.socket?.destroy();
    this.watchers.clear();
  }

  /** History is compacted: any watch resuming from today's versions gets 410 Gone. */
  expireHistory(): void {
    this.floor = this.rv + 1;
    this.history.length = 0;
  }

  /** A BOOKMARK to every watch, carrying the current resourceVersion. */
  bookmark(): void {
    for (const w of this.watchers) this.send(w, 'BOOKMARK', { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) } });
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  private emit(type: string, pod: Pod): void {
    this.rv += 1;
    pod.metadata.resourceVersion = String(this.rv);
    this.history.push({ rv: this.rv, type, pod });
    for (const w of this.watchers) if (this.matches(w, pod)) this.send(w, type, pod);
  }

  private matches(w: Pick<Watcher, 'namespace' | 'selector'>, pod: Pod): boolean {
    if (w.namespace !== null && pod.metadata.namespace !== w.namespace) return false;
    return w.selector.every(([k, v]) => pod.metadata.labels[k] === v);
  }

  private send(w: Watcher, type: string, object: unknown): void {
    w.res.write(`${JSON.stringify({ type, object })}\n`);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://double');
    const m = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?pods$/.exec(url.pathname);
    if (req.method !== 'GET' || !m) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404 }));
      return;
    }
    const namespace = m[1] ? decodeURIComponent(m[1]) : null;
    const selector = (url.searchParams.get('labelSelector') ?? '')
      .split(',')
      .filter((t) => t !== '')
      .map((t) => t.split('=') as [string, string]);
    const scope = { namespace, selector };
    if (url.searchParams.get('watch') !== 'true') {
      this.lists += 1;
      const items = [...this.pods.values()].filter((p) => this.matches(scope, p));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(this.rv) }, items }));
      return;
    }
    this.watches += 1;
    const from = Number(url.searchParams.get('resourceVersion') ?? '0');
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const w: Watcher = { res, ...scope };
    if (from < this.floor) {
      this.gone += 1;
      this.send(w, 'ERROR', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${from} (${this.floor})`, reason: 'Expired', code: 410 });
      res.end();
      return;
    }
    res.flushHeaders();
    for (const h of this.history) if (h.rv > from && this.matches(w, h.pod)) this.send(w, h.type, h.pod);
    this.watchers.add(w);
    res.on('close', () => this.watchers.delete(w));
  }
}
