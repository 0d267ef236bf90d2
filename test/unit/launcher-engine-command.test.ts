// Engine command lines and the de-duplication rules (spec cli-and-api §2.7).
// Covers §3 behaviours: 60–67 (filter incl. boolean-before-flag and boolean at the end),
// 80–82 (vLLM engine DP: default 1, passthrough value used once, `=` form), 87 (TokenSpeed command),
// 88 (TokenSpeed forwards --data-parallel-size), 89 (dist port reflected below 65535),
// 91 (user copies of owned flags dropped), 92–94 (TokenSpeed defaults, user wins, `=` form).
import { describe, expect, it } from 'vitest';
import { filterOwnedArgs, readEngineValue, suppliedKeys } from '../../src/launcher/engine-args.js';
import { buildTokenspeedCommand, buildVllmCommand } from '../../src/launcher/engine-command.js';

const count = (argv: string[], token: string): number => argv.filter((t) => t === token).length;
const after = (argv: string[], flag: string): string | undefined => argv[argv.indexOf(flag) + 1];

describe('filterOwnedArgs (§2.7.3)', () => {
  it('removes a --key value pair (§3.60)', () => {
    expect(filterOwnedArgs(['--model', 'x', '--seed', '1'], ['--model'])).toEqual(['--seed', '1']);
  });
  it('removes a --key=value token (§3.61)', () => {
    expect(filterOwnedArgs(['--model=x', '--seed', '1'], ['--model'])).toEqual(['--seed', '1']);
  });
  it('removes several keys in one pass and keeps unrelated flags (§3.62)', () => {
    expect(
      filterOwnedArgs(['--model', 'x', '--trust-remote-code', '--port=1', '--headless', '--seed', '2'], ['--model', '--port', '--headless']),
    ).toEqual(['--trust-remote-code', '--seed', '2']);
  });
  it('empty input → empty (§3.63); empty owned list → unchanged (§3.64)', () => {
    expect(filterOwnedArgs([], ['--model'])).toEqual([]);
    expect(filterOwnedArgs(['--model', 'x'], [])).toEqual(['--model', 'x']);
  });
  it('a filtered boolean does not swallow the following flag (§3.65)', () => {
    expect(filterOwnedArgs(['--headless', '--enforce-eager'], ['--headless'])).toEqual(['--enforce-eager']);
  });
  it('a filtered boolean at the end is removed cleanly (§3.66)', () => {
    expect(filterOwnedArgs(['--enforce-eager', '--headless'], ['--headless'])).toEqual(['--enforce-eager']);
  });
  it('a filtered --key value keeps the following flag (§3.67)', () => {
    expect(filterOwnedArgs(['--port', '1', '--enforce-eager'], ['--port'])).toEqual(['--enforce-eager']);
  });
  it('matches keys exactly (no prefix match) and never consumes a negative number', () => {
    expect(filterOwnedArgs(['--model-impl', 'x', '--port', '-1'], ['--model', '--port'])).toEqual(['--model-impl', 'x', '-1']);
  });
});

describe('passthrough readers', () => {
  it('first occurrence wins, both forms', () => {
    expect(readEngineValue(['--model=a', '--model', 'b'], ['--model'])).toBe('a');
    expect(readEngineValue(['-tp', '2', '--tensor-parallel-size', '4'], ['--tensor-parallel-size', '-tp'])).toBe('2');
  });
  it('a trailing flag or a flag followed by another flag has no value', () => {
    expect(readEngineValue(['--data-parallel-size'], ['--data-parallel-size'])).toBeUndefined();
    expect(readEngineValue(['--model', '--x'], ['--model'])).toBeUndefined();
  });
  it('supplied keys include the `=` form', () => {
    expect(suppliedKeys(['--grammar-backend=none', '--x', '1'])).toEqual(new Set(['--grammar-backend', '--x', '1']));
  });
});

describe('buildVllmCommand (§2.7.1)', () => {
  const base = { python: 'python3', model: 'meta-llama/Llama-3.1-8B-Instruct', handshakePort: 24640 };

  it('emits the exact zmq command, single engine by default (§3.80)', () => {
    expect(buildVllmCommand({ ...base, engineArgs: ['--max-model-len', '4096'] })).toEqual([
      'python3', '-m', 'vllm.entrypoints.cli.main', 'serve', 'meta-llama/Llama-3.1-8B-Instruct', '--headless',
      '--data-parallel-size', '1', '--data-parallel-size-local', '1',
      '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', '24640',
      '--max-model-len', '4096',
    ]);
  });

  it('uses the passthrough --data-parallel-size once, for size and size-local (§3.81)', () => {
    const argv = buildVllmCommand({ ...base, engineArgs: ['--data-parallel-size', '2', '--enforce-eager'] });
    expect(count(argv, '--data-parallel-size')).toBe(1);
    expect(after(argv, '--data-parallel-size')).toBe('2');
    expect(after(argv, '--data-parallel-size-local')).toBe('2');
    expect(argv.at(-1)).toBe('--enforce-eager');
  });

  it('reads the `=` form (§3.82)', () => {
    const argv = buildVllmCommand({ ...base, engineArgs: ['--data-parallel-size=4'] });
    expect(after(argv, '--data-parallel-size')).toBe('4');
    expect(argv.some((t) => t.startsWith('--data-parallel-size='))).toBe(false);
  });

  it('drops user copies of every launcher-owned flag, never --host/--port style leftovers', () => {
    const argv = buildVllmCommand({
      ...base,
      engineArgs: [
        '--model', 'other', '--headless', '--data-parallel-size-local', '3', '--data-parallel-address=10.0.0.1',
        '--data-parallel-rpc-port', '1', '--gpu-memory-utilization', '0.9',
      ],
    });
    expect(argv.slice(14)).toEqual(['--gpu-memory-utilization', '0.9']);
    expect(count(argv, '--headless')).toBe(1);
    expect(argv).not.toContain('other');
  });

  it('places a leading positional model once, after `serve`', () => {
    const argv = buildVllmCommand({ ...base, model: 'org/m', engineArgs: ['org/m', '--enforce-eager'] });
    expect(argv.slice(3, 6)).toEqual(['serve', 'org/m', '--headless']);
    expect(count(argv, 'org/m')).toBe(1);
  });

  it('omits the model when none was given (vLLM serves its default)', () => {
    expect(buildVllmCommand({ ...base, model: undefined, engineArgs: [] }).slice(3, 5)).toEqual(['serve', '--headless']);
  });
});

describe('buildTokenspeedCommand (§2.7.2)', () => {
  const base = { python: '/venv/bin/python', model: '/tmp/model', workerPort: 31000, handshakePort: 24640 };

  it('emits the exact zmq command with both defaults and the passthrough (§3.87, §3.92)', () => {
    expect(buildTokenspeedCommand({ ...base, engineArgs: ['--mem-fraction-static', '0.8'] })).toEqual([
      '/venv/bin/python', '-m', 'tokenspeed.cli', 'serve', '--headless', '--model', '/tmp/model',
      '--port', '31000', '--dist-init-addr', '127.0.0.1:31233',
      '--data-parallel-address', '127.0.0.1', '--data-parallel-rpc-port', '24640', '--zmq-engine-index', '0',
      '--grammar-backend', 'xgrammar', '--enable-output-logprobs',
      '--mem-fraction-static', '0.8',
    ]);
  });

  it('forwards --data-parallel-size unchanged and still sets the dist-init address (§3.88)', () => {
    const argv = buildTokenspeedCommand({ ...base, engineArgs: ['--data-parallel-size', '2'] });
    expect(argv.slice(-2)).toEqual(['--data-parallel-size', '2']);
    expect(after(argv, '--dist-init-addr')).toBe('127.0.0.1:31233');
  });

  it('reflects the dist port below the u16 ceiling (§3.89)', () => {
    expect(after(buildTokenspeedCommand({ ...base, workerPort: 65500, engineArgs: [] }), '--dist-init-addr')).toBe('127.0.0.1:65267');
  });

  it('drops user copies of owned flags and keeps the rest (§3.91)', () => {
    const argv = buildTokenspeedCommand({
      ...base,
      engineArgs: ['--model', 'x', '--data-parallel-rpc-port', '1', '--zmq-engine-index', '3', '--mem-fraction-static', '0.8'],
    });
    expect(count(argv, '--model')).toBe(1);
    expect(after(argv, '--model')).toBe('/tmp/model');
    expect(after(argv, '--data-parallel-rpc-port')).toBe('24640');
    expect(after(argv, '--zmq-engine-index')).toBe('0');
    expect(argv.slice(-2)).toEqual(['--mem-fraction-static', '0.8']);
  });

  it('the user --grammar-backend wins once; the logprobs default stays (§3.93)', () => {
    const argv = buildTokenspeedCommand({ ...base, engineArgs: ['--grammar-backend', 'llguidance'] });
    expect(count(argv, '--grammar-backend')).toBe(1);
    expect(after(argv, '--grammar-backend')).toBe('llguidance');
    expect(argv).toContain('--enable-output-logprobs');
  });

  it('honours the `=` form of a default: kept verbatim, no xgrammar (§3.94)', () => {
    const argv = buildTokenspeedCommand({ ...base, engineArgs: ['--grammar-backend=none'] });
    expect(argv).toContain('--grammar-backend=none');
    expect(argv).not.toContain('xgrammar');
    expect(argv).not.toContain('--grammar-backend');
  });

  it('a user --enable-output-logprobs appears once and the grammar default stays', () => {
    const argv = buildTokenspeedCommand({ ...base, engineArgs: ['--enable-output-logprobs'] });
    expect(count(argv, '--enable-output-logprobs')).toBe(1);
    expect(after(argv, '--grammar-backend')).toBe('xgrammar');
  });
});
