/**
 * `smg mock-engine --backend tokenspeed` (or the argv of `python -m tokenspeed.cli serve …`): a
 * simulated headless TokenSpeed engine for CI, so `smg serve --backend tokenspeed` can start it in
 * place of the real one.
 */
import { ArgsError } from '../mock-flags.js';
import { DEFAULT_MAX_MODEL_LEN } from '../engine.js';
import { mockLogger } from '../lifecycle.js';
import { parseTokenSpeedArgs } from './args.js';
import { TS_DEFAULT_TEXT, TsMockEngine } from './engine.js';

export const TOKENSPEED_MOCK_HELP = `Usage: smg mock-engine --backend tokenspeed [serve] --headless --model <model> \\
         --data-parallel-address A --data-parallel-rpc-port P --zmq-engine-index I [options]
       smg mock-engine [python] -m tokenspeed.cli serve --headless --model <model> …

A simulated headless TokenSpeed engine: each attention-DP rank loads (optionally slowly), then dials
tcp://A:P as identity I+rank, handshakes (HELLO, INIT, READY, registration) and serves tagged
TokenizedGenerateReqInput requests with BatchTokenIDOutSlim batches. No GPU, no weights.

TokenSpeed flags understood:
  --model, --model-path M | <model>  Model; a local directory supplies the EOS set (config.json,
                                     generation_config.json, tokenizer eos, <|eom_id|>) and, with a
                                     tokenizer.json, turns on --mock-mode script
  --headless                         Accepted (the mock is always headless)
  --served-model-name N              Reported as instance_id (default: the model)
  --data-parallel-address A          Handshake host (default 127.0.0.1)
  --data-parallel-rpc-port P         Handshake port (default 30500)
  --zmq-engine-index I               Identity base: rank r dials as I+r (default 0)
  --data-parallel-size, --dp-size N  Attention-DP ranks = identities (default 1; >1 needs
                                     --dist-init-addr, like the real engine)
  --tensor-parallel-size, --tp-size N  Reported only (world_size = dp x tp)
  --grammar-backend none|xgrammar    none (default) aborts every grammar request at admission
  --enable-output-logprobs           Without it, return_logprob requests are aborted at admission
  --stream-interval K                Streaming row cadence (default 1)
  --max-num-seqs N                   Running-batch cap per rank (default 160)
  --chunked-prefill-size N           Per-step token budget; reported as max_num_batched_tokens
                                     (default 8192; 0 = no cap)
  --prefix-granularity, --block-size N  Reported as prefix_granularity, also the KV page size (64)
  --context-length, --max-model-len L  Context limit reported and enforced (default ${DEFAULT_MAX_MODEL_LEN})
  --dtype D                          auto|bfloat16|float16|float32 (anything else fails at startup)
  --port P, --dist-init-addr H:P     Accepted (the mock opens no NCCL or rendezvous ports)
  --engine-startup-timeout, --gateway-startup-timeout, --drain-timeout, --control-port
                                     Rejected, as in real headless mode
  Any other flag is ignored with one warning.

Mock flags:
  --mock-token-delay-ms MS           Time per scheduler step, i.e. per token (default 0)
  --mock-load-delay-ms MS            "Model load" before HELLO (default 0)
  --mock-mode count|echo|script      As for the vLLM mock; script/echo end with the first EOS id
  --mock-count-base N                First id of count mode (default 100)
  --mock-text TEXT                   Script text (default "${TS_DEFAULT_TEXT}")
                                     An explicit seed (non-greedy) shifts/rotates the reply; the
                                     crc32(rid) seed the engine derives when none is sent does not
  --mock-eos-token-ids A,B           EOS set override (default: from the model directory)
  --mock-vocab-size N                Checks logit_bias keys against [0, N) at admission
  --mock-kv-pages N                  KV pages per rank = num_gpu_blocks (default 2048)
  --mock-output-arity 9|10|14        Batch length: 9 pre engine_index, 10 main, 14 load tail (default)
  --mock-registration-key K          prefix_granularity (default) or block_size (engines before 08-14)
  --mock-version V                   Reported as vllm_version "tokenspeed-V" (default 0.1.0)
  --mock-init-timeout-s S            Give up waiting for INIT after S seconds (default 600)
  --mock-log-requests                Log admissions, aborts and finishes at info (default: debug)
  --mock-log-level LEVEL             trace|debug|info|warn|error (default $SMG_LOG_LEVEL or info)
  --mock-replies FILE                Per-request scripted replies: a JSON array of
                                     {"when": TEXT, "reply": TEXT}; a request whose prompt
                                     (decoded with special tokens) contains TEXT gets that reply,
                                     then EOS (first match wins; else the default script)
  --mock-rank-load E:RUN:WAIT:KV[,...]
                                     Engine index E also carries requests of some other client:
                                     its load tail reports RUN+WAIT more num_running, WAIT more
                                     num_waiting and KV (0..1) more of the pages active. Such an
                                     engine keeps sending (row-less) batches while idle, every
                                     max(token delay, 20) ms, so the snapshot stays current

Fault injection (one fault, fired once):
  --mock-fault dead|silent|garbage|exit
                                     dead: ENGINE_CORE_DEAD from every rank, exit 1 (a crash);
                                     silent: stop emitting, keep sockets open;
                                     garbage: --mock-garbage-count undecodable frames (0xc1);
                                     exit: SIGKILL itself (no sentinel)
  --mock-fault-after-tokens K        Fire once K tokens were produced (default 1; 0 = at startup)
  --mock-fault-on-request SUBSTR     Fire on the first admitted ADD whose rid contains SUBSTR
  --mock-garbage-count N             Frames sent by the garbage fault (default 3)

Wire behaviour is the real engine's: malformed input is logged and dropped (no reply); invalid
sampling, n != 1, logprobs without --enable-output-logprobs or a grammar without xgrammar get one
terminal "abort" row with no tokens; ABORT is never answered, and an aborted unknown rid kills a
later ADD with that rid for 300 s; EOS ends a request on the engine's own EOS set and is included
in output_ids; a per-request stream_interval of 0 crashes the engine (sentinel, exit 1). SIGTERM
sends ENGINE_CORE_DEAD from every rank and exits 0.

  -h, --help                         Show this help
`;

export async function runTokenSpeedMockEngine(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseTokenSpeedArgs(argv);
  } catch (err) {
    if (!(err instanceof ArgsError)) throw err;
    process.stderr.write(`smg mock-engine (tokenspeed): ${err.message}\n\nRun 'smg mock-engine --backend tokenspeed --help' for usage.\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(TOKENSPEED_MOCK_HELP);
    return 0;
  }
  return new TsMockEngine(args, mockLogger(args)).run();
}
