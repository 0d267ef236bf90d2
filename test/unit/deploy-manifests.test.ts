/**
 * docs/deploy/kubernetes.md is meant to be applied as is: its manifests parse as Kubernetes YAML,
 * the commands they run are accepted by `smg serve` and `smg launch` as written, the RBAC grants
 * exactly what discovery uses, and the front's selector and port find the host pods.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseLaunchArgv } from '../../src/cli/launch/args.js';
import { parseServeArgs } from '../../src/cli/serve/serve-args.js';
import { validateGatewayConfig } from '../../src/gateway/validate-config.js';

const DOC = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'deploy', 'kubernetes.md'), 'utf8');
type Obj = { kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };
const objects = loadAllYaml(/```yaml\n([\s\S]*?)```/.exec(DOC)![1]) as Obj[];
const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
type PodSpec = { serviceAccountName?: string; containers: Array<{ args: string[]; ports: Array<{ name: string; containerPort: number }>; readinessProbe: { httpGet: { path: string } }; livenessProbe: { httpGet: { path: string } } }> };
const podOf = (o: Obj) => (o as unknown as { spec: { template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } }).spec.template;

describe('docs/deploy/kubernetes.md', () => {
  it('holds the namespace, RBAC, the per-node hosts, the front and its service', () => {
    expect(objects.map((o) => o.kind)).toEqual(['Namespace', 'ServiceAccount', 'Role', 'RoleBinding', 'DaemonSet', 'Deployment', 'Service']);
    const role = byKind('Role')[0] as unknown as { rules: Array<{ resources: string[]; verbs: string[] }> };
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]);
  });

  it('runs commands smg accepts, with probes on /readiness and /health', () => {
    const host = podOf(byKind('DaemonSet')[0]);
    const front = podOf(byKind('Deployment')[0]);
    const serve = parseServeArgs(host.spec.containers[0].args.slice(1), { env: {} });
    expect(serve.kind).toBe('config');
    const launch = parseLaunchArgv(front.spec.containers[0].args.slice(1));
    expect(launch.kind).toBe('config');
    if (launch.kind !== 'config') return;
    expect(validateGatewayConfig(launch.config)).toBeNull();
    expect(launch.config.serviceDiscovery).toBe(true);
    for (const pod of [host, front]) {
      expect(pod.spec.containers[0].readinessProbe.httpGet.path).toBe('/readiness');
      expect(pod.spec.containers[0].livenessProbe.httpGet.path).toBe('/health');
    }
    // The front's selector matches the host pods, its port is theirs, and it may read pods.
    for (const term of launch.config.selector) {
      const [k, v] = term.split('=');
      expect(host.metadata.labels[k]).toBe(v);
    }
    expect(host.spec.containers[0].ports.find((p) => p.name === 'http')!.containerPort).toBe(launch.config.serviceDiscoveryPort);
    expect(front.spec.serviceAccountName).toBe('smg-front');
    expect(launch.config.serviceDiscoveryNamespace).toBe(byKind('DaemonSet')[0].metadata.namespace);
  });
});
