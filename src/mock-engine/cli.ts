/**
 * `smg mock-engine`: a simulated headless vLLM engine for CI. Takes the argv a real vLLM headless
 * launch gets (so `smg serve` can start it in place of vLLM) plus `--mock-…` knobs.
 */
import { ArgsError, DEFAULT_TEXT, parseMockArgs } from './args.js';
import { makeVllmCodec } from './codec.js';
import { DEFAULT_MAX_MODEL_LEN, MockEngine } from './engine.js';
import { mockLogger } from './lifecycle.js';
import { runTokenSpeedMockEngine } from './tokenspeed/cli.js';
import { pickMockBackend } from './tokenspeed/select.js';

export const MOCK_ENGINE_HELP = `Usage: smg mock-engine [python -m vllm.entrypoints.cli.main] serve <model> --headless \\
         --data-parallel-size N --data-parallel-size-local N \\
         --data-parallel-address A --data-parallel-rpc-port P [options]

A simulated headless vLLM (0.27.1 wire) engine: N ranks dial tcp://A:P, handshake, register and
serve deterministic tokens over ZeroMQ. No GPU, no model weights.
For a TokenSpeed engine add --backend tokenspeed (or give the tokenspeed.cli argv); see
'smg mock-engine --backend tokenspeed --help'.

vLLM flags understood:
  <model>                            Model name; a local directory with tokenizer.json turns on
                                     --mock-mode script (default: mock-model)
  --headless                         Accepted (the mock is always headless)
  --data-parallel-size, -dp N        Group size (default 1)
  --data-parallel-size-local, -dpl N Ranks run by this process (default: the group size)
  --data-parallel-start-rank, -dpr R First local rank (default 0)
  --data-parallel-address, -dpa A    Handshake host (default 127.0.0.1)
  --data-parallel-rpc-port, -dpp P   Handshake port (default 29550)
  --max-model-len L                  Context limit reported and enforced (default ${DEFAULT_MAX_MODEL_LEN}; 8k/1M ok)
  --max-num-seqs N                   Running-batch cap (default 256)
  --max-num-batched-tokens N         Per-step token budget, chunks prefill (default 8192)
  --block-size N                     KV block size (default 16)
  --num-gpu-blocks-override N        Simulated KV blocks per rank (default 4096)
  --dtype D                          Reported dtype (default bfloat16)
  --tensor-parallel-size, -tp N      Reported only (world_size = tp x pp)
  --pipeline-parallel-size, -pp N    Reported only
  --disable-log-stats                No scheduler_stats, events or prefill_stats (as in vLLM)
  --enable-prefix-caching            Simulate vLLM's prefix cache: repeated prompt blocks are hits in
                                     scheduler_stats and prefill_stats (off unless given)
  --scheduling-policy fcfs|priority  priority: the waiting queue runs lower priority values first (default fcfs)
  Any other flag is ignored with one warning (a flag followed by a non-flag token takes it as
  its value).

Mock flags:
  --mock-token-delay-ms MS           Time per engine step, i.e. per token (default 0)
  --mock-load-delay-ms MS            "Model load" between INIT and registration (default 0)
  --mock-mode count|echo|script      count: ids base, base+1, ...; echo: the prompt ids;
                                     script: --mock-text tokenized with <model>'s tokenizer.json.
                                     echo/script then emit the request's _eos_token_id and repeat.
                                     Default: script if <model> has tokenizer.json, else count
  --mock-count-base N                First id of count mode (default 100)
  --mock-text TEXT                   Script text (default "${DEFAULT_TEXT}")
                                     A seed (non-greedy requests) shifts count ids by
                                     256*(seed mod 97) and rotates echo/script by seed mod 97
  --mock-lockstep                    MoE lockstep group: registration data_parallel_size = N,
                                     READY carries parallel_config_hash, ranks park after a wave
                                     and need START_DP_WAVE to run again
  --mock-replies FILE                Per-request scripted replies: a JSON array of
                                     {"when": TEXT, "reply": TEXT}; a request whose prompt
                                     (decoded with special tokens) contains TEXT gets that reply,
                                     then EOS (first match wins; else the default script)
  --mock-abort-reply                 Answer ABORT with a terminal ABORT output (SMG mock style;
                                     default: silent like real vLLM)
  --mock-ready-first                 Send READY before the registration (SMG mock order)
  --mock-init-timeout-s S            Give up waiting for INIT after S seconds (default 300)
  --mock-log-requests                Log request add/finish/abort at info (default: debug)
  --mock-log-level LEVEL             trace|debug|info|warn|error (default $SMG_LOG_LEVEL or info)
  --mock-vllm-version V              Reported vllm_version (default 0.27.1)
  --mock-rank-load R:RUN:WAIT:KV[,...]
                                     Rank R also carries requests of some other client: its
                                     scheduler_stats report RUN more running, WAIT more waiting
                                     and KV more KV-cache usage (0..1, capped at 1) than its own
                                     queue. Such a dense rank keeps stepping (and reporting) while
                                     idle, every max(token delay, 20) ms; a lockstep rank only adds
                                     it to the stats of steps the group runs anyway

Fault injection (one fault, fired once):
  --mock-fault MODE                  dead: ENGINE_CORE_DEAD on every rank, exit 1
                                     silent: stop emitting anything, keep sockets open
                                     garbage: send --mock-garbage-count undecodable frames (0xc1)
                                       from the triggering rank, then carry on
                                     stall-input: stop reading input (receive HWM 1, so sends
                                       queue up on the gateway side); outputs continue
                                     exit: SIGKILL itself (no sentinel)
  --mock-fault-after-tokens K        Fire once K tokens were emitted by all ranks (default 1;
                                     0 = as soon as serving starts)
  --mock-fault-on-request SUBSTR     Fire instead on the first ADD whose request_id contains SUBSTR
  --mock-garbage-count N             Frames sent by the garbage fault (default 3)

Behaviour on bad input is the real engine's: an ADD that fails decoding or SamplingParams
validation, an unknown request type or 0x05 without a payload kills the rank's input thread
(logged as "ERROR input thread died: ..."; admitted requests still finish); 0x04, a duplicate
in-flight request id or a malformed ABORT send ENGINE_CORE_DEAD and exit 1. SIGTERM aborts in-flight
requests (ABORT outputs with finished_requests) and exits 0 without a sentinel.

  -h, --help                         Show this help
`;

export async function runMockEngine(argv: string[]): Promise<number> {
  // TokenSpeed has its own argv and wire; `--backend tokenspeed` or its entry point selects it.
  let picked;
  try {
    picked = pickMockBackend(argv);
  } catch (err) {
    if (!(err instanceof ArgsError)) throw err;
    process.stderr.write(`smg mock-engine: ${err.message}\n`);
    return 2;
  }
  if (picked.backend === 'tokenspeed') return runTokenSpeedMockEngine(picked.argv);
  argv = picked.argv;
  let args;
  try {
    args = parseMockArgs(argv);
  } catch (err) {
    if (!(err instanceof ArgsError)) throw err;
    process.stderr.write(`smg mock-engine: ${err.message}\n\nRun 'smg mock-engine --help' for usage.\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(MOCK_ENGINE_HELP);
    return 0;
  }
  return new MockEngine(args, mockLogger(args), makeVllmCodec(args.lockstep)).run();
}
