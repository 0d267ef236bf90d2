/**
 * What a pod means to discovery, as SMG decides it (smg-project/smg
 * model_gateway/src/service_discovery.rs): a pod serves when its phase is Running, its Ready
 * condition is True, it has an IP and no deletion timestamp; it runs one HTTP worker per port of
 * its `smg.ai/worker-ports` annotation (comma-separated, de-duplicated in order; a bad list falls
 * back to --service-discovery-port with a warning), else one on --service-discovery-port; its
 * model id may come from `--model-id-from` (namespace, label:<key>, annotation:<key>).
 */
import type { V1Pod } from '@kubernetes/client-node';

export const WORKER_PORTS_ANNOTATION = 'smg.ai/worker-ports';

export type ModelIdSource = { kind: 'namespace' } | { kind: 'label'; key: string } | { kind: 'annotation'; key: string };

/** Parses `--model-id-from` (validated at startup, see gateway/validate-config.ts). */
export function parseModelIdSource(raw: string | null): ModelIdSource | null {
  if (raw === null) return null;
  if (raw.toLowerCase() === 'namespace') return { kind: 'namespace' };
  if (raw.startsWith('label:') && raw.length > 6) return { kind: 'label', key: raw.slice(6) };
  if (raw.startsWith('annotation:') && raw.length > 11) return { kind: 'annotation', key: raw.slice(11) };
  return null;
}

/** `k=v` terms → a Kubernetes label selector string (`k=v,k2=v2`). */
export function labelSelector(terms: readonly string[]): string {
  return terms.join(',');
}

export function podKey(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

export function podServes(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  if (pod.status?.phase !== 'Running' || !pod.status.podIP) return false;
  return (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** The pod's worker ports, and a warning when its annotation could not be read. */
export function podPorts(pod: V1Pod, defaultPort: number): { ports: number[]; warning: string | null } {
  const raw = pod.metadata?.annotations?.[WORKER_PORTS_ANNOTATION];
  if (raw === undefined) return { ports: [defaultPort], warning: null };
  const ports: number[] = [];
  for (const part of raw.split(',')) {
    const t = part.trim();
    const n = /^\d+$/.test(t) ? Number(t) : NaN;
    if (!(n >= 1 && n <= 65535)) {
      return { ports: [defaultPort], warning: `Pod ${podKey(pod)}: invalid ${WORKER_PORTS_ANNOTATION} annotation '${raw}', falling back to port ${defaultPort}` };
    }
    if (!ports.includes(n)) ports.push(n);
  }
  return { ports, warning: null };
}

export function podWorkerUrls(pod: V1Pod, ports: readonly number[]): string[] {
  const ip = pod.status?.podIP ?? '';
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return ports.map((p) => `http://${host}:${p}`);
}

export function podModelId(pod: V1Pod, source: ModelIdSource | null): string | null {
  if (source === null) return null;
  const md = pod.metadata;
  switch (source.kind) {
    case 'namespace':
      return md?.namespace ?? null;
    case 'label':
      return md?.labels?.[source.key] ?? null;
    case 'annotation':
      return md?.annotations?.[source.key] ?? null;
  }
}
