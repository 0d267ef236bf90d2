/**
 * The flags `smg serve` consumes itself (spec cli-and-api §2.1), with SMG's defaults, plus the
 * clone's additions (§2.7 "make the Python executable configurable", §2.11/§2.12 opt-ins).
 * Serve's --host/--port are the gateway's bind address, not the engine's.
 */
import type { FlagDef } from './flag-def.js';

/** What serve's parser accepts (SMG's list); only vllm and tokenspeed can run over zmq. */
export const SERVE_BACKENDS = ['sglang', 'vllm', 'trtllm', 'tokenspeed'] as const;
export const CONNECTION_MODES = ['grpc', 'http', 'zmq'] as const;

export const SERVE_FLAGS: readonly FlagDef[] = [
  {
    name: 'backend', type: 'string', applies: ['serve'], group: 'Serve', choices: SERVE_BACKENDS, metavar: '{vllm,tokenspeed}', default: 'sglang',
    defaultText: '$SMG_DEFAULT_BACKEND, else sglang, which zmq mode rejects: pass --backend',
    describe: 'Engine to launch',
  },
  {
    name: 'connection-mode', type: 'string', applies: ['serve'], group: 'Serve', choices: CONNECTION_MODES, metavar: 'zmq', default: 'grpc',
    describe: "Transport to the engines; must be given explicitly (SMG's default, grpc, is not supported here)",
  },
  { name: 'host', type: 'string', applies: ['serve'], group: 'Serve', metavar: '<HOST>', default: '127.0.0.1', describe: 'Gateway bind host' },
  { name: 'port', type: 'int', applies: ['serve'], group: 'Serve', metavar: '<PORT>', range: 'port', default: 8080, describe: 'Gateway port' },
  {
    name: 'data-parallel-size', aliases: ['dp-size'], type: 'int', applies: ['serve'], group: 'Serve', range: 'count', default: 1,
    describe: 'Replicas: independent engines, one gateway worker each',
  },
  {
    name: 'worker-host', type: 'string', applies: ['serve'], group: 'Serve', metavar: '<HOST>', default: '127.0.0.1',
    describe: 'Engine host shown in the launch log lines (the ZMQ address is always a local ipc path)',
  },
  {
    name: 'worker-base-port', type: 'int', applies: ['serve'], group: 'Serve', metavar: '<PORT>', range: 'port', default: 31000,
    describe: "First worker port; names the ipc path ipc://$SMG_ZMQ_SOCKET_DIR/engine-<port> and TokenSpeed's --port",
  },
  {
    name: 'worker-startup-timeout', type: 'int', applies: ['serve'], group: 'Serve', metavar: '<SECS>', range: 'nonNegative', default: 300,
    describe: 'Accepted; zmq mode has no health wait',
  },
  { name: 'enable-token-usage-details', type: 'bool', applies: ['serve'], group: 'Serve', describe: 'Accepted; no effect in zmq mode' },
  {
    // Accepted unprefixed like SMG, then overwritten with the launcher's own URLs (§2.1).
    name: 'worker-urls', type: 'list', applies: ['serve'], group: 'Serve', metavar: '<URL>...',
    describe: "Accepted and ignored with a warning: the gateway is given the launched engines' URLs",
  },
  {
    name: 'python', type: 'string', applies: ['serve'], group: 'Serve', metavar: '<PATH>', default: 'python3', defaultText: '$SMG_PYTHON, else python3',
    describe: 'Interpreter for `<python> -m vllm.entrypoints.cli.main serve …`; bin/mock-python runs `smg mock-engine` instead: no GPU or Python needed',
  },
  {
    name: 'restart-engines', type: 'bool', applies: ['serve'], group: 'Serve',
    describe: 'Restart an engine that exits on its own, with backoff (1 s doubling to 60 s); its worker rejoins when it dials in',
  },
  { name: 'prefix-engine-output', type: 'bool', applies: ['serve'], group: 'Serve', describe: 'Prefix engine output lines with [engine-N]' },
  { name: 'dry-run', type: 'bool', applies: ['serve'], group: 'Serve', describe: 'Print the engine commands and the gateway configuration, then exit' },
];
