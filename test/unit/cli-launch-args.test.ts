import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { defaultGatewayConfig } from '../../src/gateway/config.js';
import { parseLaunchArgv } from '../../src/cli/launch/args.js';
import { runLaunch } from '../../src/cli/launch-command.js';
import { validateGatewayConfig } from '../../src/gateway/validate-config.js';
import { freeTcpPort } from '../../src/mock-engine/spawn.js';

function config(argv: string[]) {
  const r = parseLaunchArgv(argv);
  if (r.kind !== 'config') throw new Error(r.kind === 'error' ? r.message : 'help');
  return r.config;
}

function usageError(argv: string[]): string {
  const r = parseLaunchArgv(argv);
  if (r.kind !== 'error') throw new Error(`expected an error for ${argv.join(' ')}`);
  return r.message;
}

function sink() {
  let text = '';
  const stream = new Writable({
    write(chunk, _e, cb) {
      text += String(chunk);
      cb();
    },
  });
  return { stream, text: () => text };
}

describe('smg launch flags', () => {
  it('defaults', () => {
    expect(config([])).toEqual(defaultGatewayConfig());
    const d = defaultGatewayConfig();
    expect(d).toMatchObject({ host: '0.0.0.0', port: 30000, policy: 'cache_aware', prometheusHost: '0.0.0.0', prometheusPort: 29000 });
  });

  it('multi-value --worker-urls accumulate across repeats', () => {
    expect(config(['--worker-urls', 'ipc:///a', 'ipc:///b', '--worker-urls', 'ipc:///c']).workerUrls).toEqual([
      'ipc:///a',
      'ipc:///b',
      'ipc:///c',
    ]);
  });

  it('aliases and typed values', () => {
    const c = config([
      '--runtime', 'tokenspeed', '--model', 'q', '--port', '8080', '--policy', 'round_robin', '--zmq-engine-count', '2',
      '--dp-aware', '--disable-health-check', '--worker-auto-recovery', '--api-key', 'k', '--log-json',
      '--zmq-stage-timeout-secs', '0.5', '--health-check-interval-secs', '5', '--max-concurrent-requests', '4',
    ]);
    expect(c).toMatchObject({
      backend: 'tokenspeed', modelPath: 'q', port: 8080, policy: 'round_robin', zmqEngineCount: 2, dpAware: true,
      disableHealthCheck: true, removeUnhealthyWorkers: true, apiKey: 'k', logJson: true, zmqStageTimeoutSecs: 0.5,
      healthCheckIntervalSecs: 5, maxConcurrentRequests: 4,
    });
  });

  it('usage errors', () => {
    expect(usageError(['--bogus'])).toBe("unexpected argument '--bogus' found");
    // No camel-case twin in the message (yargs would say `bogus-flag, bogusFlag`).
    expect(usageError(['--bogus-flag=1'])).toBe("unexpected argument '--bogus-flag' found");
    expect(usageError(['--backend', 'sglang', '--worker-urls', 'ipc:///tmp/a'])).toMatch(/^--backend sglang cannot drive ipc:\/\/ workers/);
    expect(usageError(['--backend', 'openai', '--worker-urls', 'ipc:///tmp/a'])).toMatch(/pass --backend vllm or --backend tokenspeed$/);
    expect(usageError(['--zmq-engine-count', '0'])).toContain("invalid value '0'; expected a count >= 1");
    expect(usageError(['--zmq-engine-count', '-1'])).toContain("invalid value '-1'; expected a count >= 1");
    expect(usageError(['--port', 'abc'])).toBe("invalid value 'abc' for '--port': expected an integer");
    expect(usageError(['--policy', 'bucket'])).toContain("invalid value 'bucket' for '--policy'");
    expect(usageError(['--port'])).toMatch(/Not enough arguments/);
  });

  it('--help', () => {
    const r = parseLaunchArgv(['--help']);
    expect(r.kind).toBe('help');
    if (r.kind === 'help') {
      expect(r.text).toContain('--worker-urls');
      expect(r.text).toContain('--zmq-silence-timeout-secs');
    }
  });
});

describe('config validation texts', () => {
  const base = defaultGatewayConfig();
  it.each([
    [{ port: 0 }, "Invalid value for field 'port': 0 - Port must be > 0"],
    [{ prometheusPort: 0 }, "Invalid value for field 'metrics.port': 0 - Port must be > 0"],
    [{ requestTimeoutSecs: 0 }, "Invalid value for field 'request_timeout_secs': 0 - Must be > 0"],
    [{ queueTimeoutSecs: 0 }, "Invalid value for field 'queue_timeout_secs': 0 - Must be > 0 when queue_size > 0"],
    [{ workerUrls: ['Ipc:///x'] }, "Invalid value for field 'worker_url': Ipc:///x - URL must start with a lowercase http://, https://, grpc://, grpcs://, or ipc:// scheme"],
    [{ policy: 'power_of_two' as const, workerUrls: ['ipc:///a'] }, 'Incompatible configuration: Power-of-two policy requires at least 2 workers'],
    [{ healthCheckPort: 0 }, "Invalid value for field 'health_check_port': 0 - Port must be > 0 (0 would request an unstable OS-ephemeral port)"],
    [{ rateLimitTokensPerSecond: -1 }, "Invalid value for field 'rate_limit_tokens_per_second': -1 - Must be >= 0 when specified"],
    [{ workerStartupTimeoutSecs: 0 }, "Invalid value for field 'worker_startup_timeout_secs': 0 - Must be > 0"],
    [{ workerStartupCheckInterval: 0 }, "Invalid value for field 'worker_startup_check_interval_secs': 0 - Must be > 0"],
    [{ policy: 'prefix_hash' as const, prefixHashLoadFactor: 0.5 }, "Invalid value for field 'load_factor': 0.5 - Must be >= 1.0"],
  ])('%j', (over, text) => {
    expect(validateGatewayConfig({ ...base, ...over })).toBe(text);
  });

  it('a valid config passes', () => {
    expect(validateGatewayConfig({ ...base, policy: 'power_of_two', workerUrls: ['ipc:///a', 'ipc:///b'] })).toBeNull();
  });
});

describe('runLaunch exit codes', () => {
  it('2 for usage errors, 1 for invalid config, 0 for help', async () => {
    const err = sink();
    expect(await runLaunch(['--nope'], { stderr: err.stream, stdout: sink().stream })).toBe(2);
    expect(err.text()).toContain("error: unexpected argument '--nope' found");
    const out = sink();
    expect(await runLaunch(['--port', '0'], { stdout: out.stream })).toBe(1);
    expect(out.text()).toContain("Configuration validation failed: Invalid value for field 'port': 0 - Port must be > 0");
    expect(await runLaunch(['-h'], { stdout: sink().stream })).toBe(0);
  });

  it('1 when the port is taken; 143 after SIGTERM, 130 after SIGINT', async () => {
    const [port, mport] = [await freeTcpPort(), await freeTcpPort()];
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(port, '127.0.0.1', r));
    const out = sink();
    const args = ['--host', '127.0.0.1', '--port', String(port), '--prometheus-host', '127.0.0.1', '--prometheus-port', String(mport), '--drain-settle-secs', '0'];
    expect(await runLaunch(args, { stdout: out.stream, signals: new EventEmitter() })).toBe(1);
    expect(out.text()).toContain('Error starting router: ');
    await new Promise<void>((r) => blocker.close(() => r()));

    for (const [sig, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
      const signals = new EventEmitter();
      const log = sink();
      const running = runLaunch(args, { stdout: log.stream, signals });
      // A generous ceiling: on a busy machine the listener can take seconds to come up.
      const deadline = Date.now() + 30_000;
      while (!log.text().includes('Gateway listening') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      // A connection of its own: a pooled keep-alive socket to the previous gateway on this port
      // would be reused and fail with "other side closed".
      const live = await fetch(`http://127.0.0.1:${port}/liveness`, { headers: { connection: 'close' } });
      expect(await live.text()).toBe('OK');
      signals.emit(sig);
      expect(await running).toBe(code);
      expect(log.text()).toContain(`Received ${sig}, shutting down`);
    }
  });
});

describe('--log-dir', () => {
  it('parses into the config, and the logger also writes <dir>/smg.<YYYY-MM-DD>', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { Writable } = await import('node:stream');
    const { createLogger } = await import('../../src/util/logger.js');
    const dir = join(mkdtempSync(join(tmpdir(), 'smg-logdir-')), 'logs');
    const r = parseLaunchArgv(['--log-dir', dir]);
    expect(r.kind === 'config' && r.config.logDir).toBe(dir);
    let terminal = '';
    const logger = createLogger({ destination: new Writable({ write: (c, _e, cb) => ((terminal += String(c)), cb()) }), logDir: dir });
    logger.info('hello from the gateway');
    const file = join(dir, `smg.${new Date().toISOString().slice(0, 10)}`);
    const deadline = Date.now() + 5000;
    let text = '';
    while (Date.now() < deadline) {
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        text = '';
      }
      if (text.includes('hello from the gateway')) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    expect(text).toContain('INFO  hello from the gateway');
    expect(terminal).toContain('INFO  hello from the gateway');
  });
});
