// --history-backend, --postgres-db-url, --postgres-pool-max: SMG's flags on `smg launch`, the same
// with --router- on `smg serve`, and the checks SMG's PostgresConfig::validate makes.
import { describe, expect, it } from 'vitest';
import { parseLaunchArgv } from '../../src/cli/launch/args.js';
import { buildGatewayConfig, toLaunchArgv } from '../../src/cli/serve/gateway-config.js';
import { defaultGatewayConfig, type GatewayConfig } from '../../src/gateway/config.js';
import { validateGatewayConfig } from '../../src/gateway/validate-config.js';

function launch(argv: string[]): GatewayConfig {
  const p = parseLaunchArgv(argv);
  if (p.kind !== 'config') throw new Error(`expected a config, got ${JSON.stringify(p)}`);
  return p.config;
}

describe('history flags', () => {
  it('default: memory, no database, a pool of 16 (SMG)', () => {
    const c = defaultGatewayConfig();
    expect([c.historyBackend, c.postgresDbUrl, c.postgresPoolMax]).toEqual(['memory', null, 16]);
  });

  it('smg launch takes the three flags; other backends are refused by name', () => {
    const c = launch(['--history-backend', 'postgres', '--postgres-db-url', 'postgres://u:p@db:5432/smg', '--postgres-pool-max', '4']);
    expect([c.historyBackend, c.postgresDbUrl, c.postgresPoolMax]).toEqual(['postgres', 'postgres://u:p@db:5432/smg', 4]);
    const bad = parseLaunchArgv(['--history-backend', 'redis']);
    expect(bad.kind).toBe('error');
    expect((bad as { message: string }).message).toContain("invalid value 'redis' for '--history-backend'");
  });

  it('smg serve passes --router-history-backend and the postgres flags to its gateway', () => {
    const r = buildGatewayConfig(
      {
        backend: 'vllm',
        host: '127.0.0.1',
        port: 8080,
        replicas: 1,
        model: 'org/m',
        engineArgs: ['--model', 'org/m'],
        engineDataParallelSize: 1,
        router: { 'history-backend': 'postgres', 'postgres-db-url': 'postgres://db/smg', 'postgres-pool-max': '8' },
      },
      ['ipc:///tmp/e0'],
    );
    const c = launch(toLaunchArgv(r.config));
    expect([c.historyBackend, c.postgresDbUrl, c.postgresPoolMax]).toEqual(['postgres', 'postgres://db/smg', 8]);
  });

  it.each([
    [{}, '--history-backend postgres needs --postgres-db-url'],
    [{ postgresDbUrl: 'mysql://db/smg' }, 'unsupported --postgres-db-url scheme: mysql'],
    [{ postgresDbUrl: 'postgres://db' }, '--postgres-db-url must include a database name'],
    [{ postgresDbUrl: 'not a url' }, "invalid --postgres-db-url 'not a url'"],
    [{ postgresDbUrl: 'postgres://db/smg', postgresPoolMax: 0 }, '--postgres-pool-max must be greater than 0'],
  ])('postgres without a usable URL or pool fails validation: %j', (over, message) => {
    expect(validateGatewayConfig({ ...defaultGatewayConfig(), historyBackend: 'postgres', ...over })).toBe(message);
  });

  it('memory and none need nothing else', () => {
    expect(validateGatewayConfig({ ...defaultGatewayConfig(), historyBackend: 'none' })).toBeNull();
    expect(validateGatewayConfig(defaultGatewayConfig())).toBeNull();
  });
});
