import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgsError } from '../../src/mock-engine/args.js';
import { parseTokenSpeedArgs, registrationDtype, tsHandshakeAddress } from '../../src/mock-engine/tokenspeed/args.js';
import { engineEosIds } from '../../src/mock-engine/tokenspeed/eos.js';
import { pickMockBackend } from '../../src/mock-engine/tokenspeed/select.js';
import { addTokens, effectiveMax, rowDue, StreamIntervalZero, takeRow, wireFinish, type TsTrack } from '../../src/mock-engine/tokenspeed/track.js';

/** What `smg serve --backend tokenspeed` runs (smg-newest §4.3), after the interpreter. */
const SERVE_ARGV = ['-m', 'tokenspeed.cli', 'serve', '--headless', '--model', '/models/q', '--port', '31000',
  '--dist-init-addr', '127.0.0.1:31233', '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', '22714',
  '--zmq-engine-index', '0', '--grammar-backend', 'xgrammar', '--enable-output-logprobs'];

describe('TokenSpeed mock argv', () => {
  it('reads the launcher argv with any entry-point prefix', () => {
    const rest = SERVE_ARGV.slice(3);
    for (const prefix of [['python3', '-m', 'tokenspeed.cli', 'serve'], ['-m', 'tokenspeed.cli', 'serve'], ['ts', 'serve'], ['serve'], [],
      ['-m', 'tokenspeed.runtime.entrypoints.engine']]) {
      const a = parseTokenSpeedArgs([...prefix, ...rest]);
      expect([a.model, a.headless, a.port, a.distInitAddr, a.dpRpcPort, a.zmqEngineIndex]).toEqual(['/models/q', true, 31000, '127.0.0.1:31233', 22714, 0]);
      expect([a.grammarBackend, a.enableOutputLogprobs]).toEqual(['xgrammar', true]);
      expect(tsHandshakeAddress(a)).toBe('tcp://127.0.0.1:22714');
    }
  });

  it('has the real engine defaults', () => {
    const a = parseTokenSpeedArgs(['serve', 'm']);
    expect([a.dpRpcPort, a.grammarBackend, a.enableOutputLogprobs, a.streamInterval, a.maxNumSeqs, a.chunkedPrefillSize, a.prefixGranularity])
      .toEqual([30500, 'none', false, 1, 160, 8192, 64]);
    expect([a.model, a.outputArity, a.registrationKey, a.initTimeoutS]).toEqual(['m', 14, 'prefix_granularity', 600]);
  });

  it('accepts both spellings of aliased flags and ignores unknown ones with their value', () => {
    const a = parseTokenSpeedArgs(['serve', '--model', 'm', '--block-size', '16', '--max-model-len', '2048', '--tp-size', '2',
      '--sampling-backend', 'flashinfer', '--trust-remote-code', '--mock-eos-token-ids', '7,9', '--mock-output-arity=10']);
    expect([a.prefixGranularity, a.contextLength, a.tensorParallelSize, a.eosTokenIds, a.outputArity]).toEqual([16, 2048, 2, [7, 9], 10]);
    expect(a.ignored).toEqual(['--sampling-backend flashinfer', '--trust-remote-code']);
  });

  it('refuses what real headless mode refuses', () => {
    expect(() => parseTokenSpeedArgs(['serve', '--data-parallel-size', '2'])).toThrow(/must provide --dist-init-addr/);
    expect(() => parseTokenSpeedArgs(['serve', '--control-port', '9000'])).toThrow(/not supported in --headless mode/);
    expect(() => parseTokenSpeedArgs(['serve', '--zmq-engine-index', '65535', '--dp-size', '2', '--dist-init-addr', 'h:1'])).toThrow(/uint16/);
    expect(() => parseTokenSpeedArgs(['serve', '--grammar-backend', 'outlines'])).toThrow(ArgsError);
    expect(() => parseTokenSpeedArgs(['serve', '--mock-output-arity', '12'])).toThrow(/9, 10, 14/);
    expect(registrationDtype('auto')).toBe('bfloat16');
    expect(registrationDtype('float8')).toBeNull();
  });

  it('picks the backend from --backend or from the entry point, removing the selector', () => {
    expect(pickMockBackend(['--backend', 'tokenspeed', 'serve', '--model', 'm'])).toEqual({ backend: 'tokenspeed', argv: ['serve', '--model', 'm'] });
    expect(pickMockBackend(['--backend=vllm', 'serve', 'm']).backend).toBe('vllm');
    expect(pickMockBackend(SERVE_ARGV).backend).toBe('tokenspeed');
    expect(pickMockBackend(['python', '-m', 'tokenspeed.cli', 'serve']).backend).toBe('tokenspeed');
    expect(pickMockBackend(['ts', 'serve', '--model', 'm']).backend).toBe('tokenspeed');
    expect(pickMockBackend(['-m', 'vllm.entrypoints.cli.main', 'serve', 'm']).backend).toBe('vllm');
    expect(pickMockBackend(['serve', 'ts']).backend).toBe('vllm');
    expect(() => pickMockBackend(['--backend', 'sglang'])).toThrow(ArgsError);
  });
});

describe('TokenSpeed mock EOS set', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('unions config.json, generation_config.json, the tokenizer eos token and <|eom_id|>', async () => {
    dir = await mkdtemp(join(tmpdir(), 'smg-ts-eos-'));
    await writeFile(join(dir, 'config.json'), JSON.stringify({ eos_token_id: 9 }));
    await writeFile(join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: [9, 7] }));
    await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify({ eos_token: { content: '<end>' } }));
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify({ added_tokens: [{ id: 5, content: '<end>' }], model: { vocab: { '<|eom_id|>': 11 } } }));
    expect(engineEosIds(dir, null).ids).toEqual([9, 7, 5, 11]);
    expect(engineEosIds(dir, [3, 3]).ids).toEqual([3]);
    expect(engineEosIds('Qwen/Qwen3-0.6B', null).ids).toEqual([]);
  });
});

describe('TokenSpeed row cadence', () => {
  const track = (stream: boolean, interval = 1, returnLogprob = false): TsTrack => ({
    rid: 'r', stream, interval, effectiveMax: effectiveMax(null, 100, 10), promptTokens: 10, returnLogprob,
    completion: 0, pendingIds: [], pendingLogprobs: [],
  });

  it('caps at the context minus 2, never below one token', () => {
    expect(effectiveMax(null, 100, 10)).toBe(88);
    expect(effectiveMax(5, 100, 10)).toBe(5);
    expect(effectiveMax(0, 100, 10)).toBe(1);
    expect(effectiveMax(null, 100, 99)).toBe(1);
  });

  it('delivers every token exactly once whatever the cadence, logprob ids matching', () => {
    const t = track(true, 3, true);
    const rows = [];
    for (let i = 0; i < 8; i++) {
      addTokens(t, [i], [-i]);
      const last = i === 7;
      if (rowDue(t, last)) rows.push(takeRow(t, last ? wireFinish(t, false) : ''));
    }
    expect(rows.map((r) => r.outputIds)).toEqual([[0], [1, 2, 3], [4, 5, 6], [7]]);
    expect(rows[1].logprobVals).toEqual([-1, -2, -3]);
    expect(rows[1].logprobIdx).toEqual([1, 2, 3]);
    expect(rows.at(-1)).toMatchObject({ finishedReason: 'stop', completionTokens: 8, promptTokens: 10 });
  });

  it('says length when the last allowed token finished it, and crashes on interval 0', () => {
    const t = track(true);
    t.effectiveMax = 2;
    addTokens(t, [1, 2], null);
    expect(wireFinish(t, false)).toBe('length');
    expect(() => rowDue(track(true, 0), false)).toThrow(StreamIntervalZero);
    const ns = track(false);
    const due: number[] = [];
    for (let i = 1; i <= 101; i++) {
      addTokens(ns, [i], null);
      if (rowDue(ns, false)) due.push(i);
    }
    expect(due).toEqual([1, 50, 100]);
  });
});
