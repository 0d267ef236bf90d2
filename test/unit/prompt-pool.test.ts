/**
 * The prompt pool's lifecycle on the tiny tokenizer: threads start in the background (niced, on
 * Linux) on the fast encoder (or the one asked for, or the next that works, saying why) and give
 * the event loop's ids, a template error comes back as the template's error, a thread that dies fails
 * the jobs it held with a 500 and is replaced, a pool with no thread ready (or closed) leaves the
 * work to the event loop, and an idle pool does not keep the process alive.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatTemplate, ChatTemplateError } from '../../src/pipeline/chat-prompt/chat-template.js';
import { PipelineError } from '../../src/pipeline/errors.js';
import {
  encodeChatPrompt,
  encodePromptText,
  FAST_ON_LOOP_MAX_CHARS,
  TEXT_OFF_LOOP_MIN_CHARS,
  WAIT_FOR_THREAD_MIN_CHARS,
} from '../../src/pipeline/prompt-pool/encode-prompt.js';
import type { PromptPool, PromptPoolEvent } from '../../src/pipeline/prompt-pool/pool.js';
import { startPromptPool } from '../../src/pipeline/prompt-pool/start.js';
import type { HfTokenizer } from '../../src/pipeline/tokenizer/hf-tokenizer.js';
import { loadTokenizer, type LoadedTokenizer } from '../../src/pipeline/tokenizer/index.js';

const ROOT = join(import.meta.dirname, '../..');
const TINY = join(ROOT, 'test/fixtures/tiny-tokenizer');
const CRASHING = new URL('../support/crashing-prompt-worker.mjs', import.meta.url);
/** Whether the Rust binding is installed (then a pool asked for it runs one thread on it). */
const BINDING = (() => {
  try {
    return Boolean(createRequire(import.meta.url).resolve('tokenizers'));
  } catch {
    return false;
  }
})();
const BIG = 'Hi the hello world 世界 👋 '.repeat(100);

let tok: LoadedTokenizer;
let template: ChatTemplate;
beforeAll(async () => {
  tok = await loadTokenizer(TINY);
  template = ChatTemplate.compile(tok.chatTemplate, tok);
});

function expectTokenizationFailed(err: unknown, detail: RegExp): void {
  expect(err).toBeInstanceOf(PipelineError);
  const e = err as PipelineError;
  expect([e.status, e.code]).toEqual([500, 'tokenization_failed']);
  expect(e.message).toMatch(/^Tokenization failed: /);
  expect(e.message).toMatch(detail);
}

describe('a started pool', () => {
  let pool: PromptPool;
  const events: PromptPoolEvent[] = [];
  beforeAll(async () => {
    pool = startPromptPool(tok, template, { onEvent: (e) => events.push(e) });
    await pool.whenReady();
  }, 60_000);
  afterAll(() => pool.close());

  it('starts two threads on the fast encoder (the tiny tokenizer is one it supports)', () => {
    const ready = events.filter((e) => e.kind === 'ready');
    expect(pool.readyCount).toBe(2);
    expect(ready).toHaveLength(2);
    for (const e of ready) expect(e).toMatchObject({ encoder: 'fast', note: null });
  });

  it.runIf(process.platform === 'linux')('runs its threads niced (10), leaving the event loop at its own priority', () => {
    // Per-thread nice values, field 19 of /proc/self/task/<tid>/stat (after the parenthesised comm).
    const nices = readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
    expect(nices.filter((n) => n === 10).length).toBeGreaterThanOrEqual(2);
    expect(getPriority()).toBe(0);
  });

  it('encodes text and chat prompts to the ids the event loop gives', async () => {
    expect(await pool.encodeText(BIG)).toEqual(tok.encode(BIG, false));
    expect(await pool.encodeText('')).toEqual([]);
    const request = { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: BIG }] };
    expect(await pool.encodeChat(request)).toEqual(tok.encode(template.render(request), false));
  });

  it("hands a long prompt's ids back (converted a slice per turn): the same ids", async () => {
    const long = BIG.repeat(40);
    const want = tok.encode(long, false);
    expect(want.length).toBeGreaterThan(2 * 32_768);
    expect(await pool.encodeText(long)).toEqual(want);
  });

  it('hands back a request it cannot send to a thread (not cloneable)', () => {
    const request = { messages: [{ role: 'user', content: BIG, extra: () => 1 }] };
    expect(pool.encodeChat(request)).toBeNull();
  });

  it('answers many concurrent jobs, each with its own ids', async () => {
    const chars = Array.from(BIG); // by code point: a cut emoji would be declined to the loop
    const texts = Array.from({ length: 200 }, (_, i) => `${i} ${chars.slice(i, i + 50 + i).join('')}<|im_end|>${i}`);
    const got = await Promise.all(texts.map((t) => pool.encodeText(t)));
    expect(got).toEqual(texts.map((t) => tok.encode(t, false)));
  });

  it("reports a template's own error as a ChatTemplateError with the in-loop message", async () => {
    const request = { messages: [{ role: 'user', content: BIG }], kwargs: {} };
    const raising = ChatTemplate.compile("{{ raise_exception('no such role: ' + messages[0].role) }}", tok);
    const own = startPromptPool(tok, raising);
    try {
      await own.whenReady();
      const expected = (() => {
        try {
          raising.render(request);
        } catch (err) {
          return err;
        }
      })();
      expect(expected).toBeInstanceOf(ChatTemplateError);
      const err = await (own.encodeChat(request) as Promise<number[] | null>).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ChatTemplateError);
      expect((err as Error).message).toBe((expected as Error).message);
    } finally {
      await own.close();
    }
  }, 60_000);
});

describe('the encoder a thread falls back to', () => {
  async function readyEvents(pool: PromptPool, events: PromptPoolEvent[]): Promise<PromptPoolEvent[]> {
    await pool.whenReady();
    return events.filter((e) => e.kind === 'ready');
  }

  it('asked for the binding: one thread on it when it is installed, else two on the JS library', async () => {
    const events: PromptPoolEvent[] = [];
    const pool = startPromptPool(tok, template, { encoder: 'native', onEvent: (e) => events.push(e) });
    try {
      const ready = await readyEvents(pool, events);
      expect(ready).toHaveLength(BINDING ? 1 : 2);
      for (const e of ready) {
        expect(e).toMatchObject(BINDING ? { encoder: 'native', note: null } : { encoder: 'js', note: expect.stringMatching(/tokenizers binding did not load/) });
      }
      expect(await pool.encodeText(BIG)).toEqual(tok.encode(BIG, false));
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('a tokenizer the fast encoder refuses: the binding (or the JS library), with the reason in the note', async () => {
    // A normalizer the fast encoder does not implement (the JS library and the binding do).
    const dir = mkdtempSync(join(tmpdir(), 'smg-lowercase-'));
    try {
      const json = JSON.parse(readFileSync(join(TINY, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify({ ...json, normalizer: { type: 'Lowercase' } }));
      copyFileSync(join(TINY, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
      const lower = await loadTokenizer(dir);
      expect((lower as HfTokenizer).encoder).toBe('js');
      const events: PromptPoolEvent[] = [];
      const pool = startPromptPool(lower, null, { size: 1, onEvent: (e) => events.push(e) });
      try {
        const [ready] = await readyEvents(pool, events);
        expect(ready).toMatchObject({ encoder: BINDING ? 'native' : 'js', note: expect.stringMatching(/^the fast encoder does not support this tokenizer: unsupported normalizer "Lowercase"/) });
        expect(await pool.encodeText(`HELLO ${BIG}`)).toEqual(lower.encode(`HELLO ${BIG}`, false));
      } finally {
        await pool.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a thread that dies', () => {
  it('fails the jobs it held with a 500, never hangs, and is replaced', async () => {
    const events: PromptPoolEvent[] = [];
    const pool = startPromptPool(tok, template, {
      size: 1,
      spawn: (init) => new Worker(CRASHING, { workerData: init }),
      onEvent: (e) => events.push(e),
    });
    try {
      await pool.whenReady(1);
      const crash = (pool.encodeText('__crash__') as Promise<number[] | null>).catch((e: unknown) => e);
      // Queued behind the crash on the same (only) thread: it is in flight when the thread dies.
      const behind = (pool.encodeText(BIG) as Promise<number[] | null>).catch((e: unknown) => e);
      expectTokenizationFailed(await crash, /prompt worker thread exited \(simulated prompt worker crash\)/);
      expectTokenizationFailed(await behind, /prompt worker thread exited/);
      expect(events).toContainEqual(expect.objectContaining({ kind: 'exit' }));
      await pool.whenReady(1);
      expect(await pool.encodeText(BIG)).toEqual(tok.encode(BIG, false));
      expect(events.filter((e) => e.kind === 'ready')).toHaveLength(2);
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe('without a ready thread', () => {
  it('leaves big prompts to the event loop while no thread can start', async () => {
    const events: PromptPoolEvent[] = [];
    // Threads cannot load a tokenizer from a directory that has none; they keep being retried.
    const pool = startPromptPool({ ...tok, directory: join(ROOT, 'test/fixtures/no-such-dir'), encode: tok.encode.bind(tok), idToToken: tok.idToToken.bind(tok) }, template, {
      onEvent: (e) => events.push(e),
    });
    try {
      await expect.poll(() => events.some((e) => e.kind === 'exit'), { timeout: 60_000 }).toBe(true);
      expect(events.find((e) => e.kind === 'exit')).toMatchObject({ message: expect.stringMatching(/tokenizer\.json/) });
      expect(pool.readyCount).toBe(0);
      expect(pool.encodeText(BIG)).toBeNull();
      const request = { messages: [{ role: 'user', content: BIG }] };
      expect(await encodeChatPrompt({ tokenizer: tok, pool }, template, request)).toEqual(tok.encode(template.render(request), false));
      expect(await encodePromptText({ tokenizer: tok, pool }, BIG)).toEqual(tok.encode(BIG, false));
      // Nor a long one: threads that keep failing are not waited for.
      const long = BIG.repeat(8);
      const t0 = performance.now();
      expect(await encodePromptText({ tokenizer: tok, pool }, long)).toEqual(tok.encode(long, false));
      expect(performance.now() - t0).toBeLessThan(5000);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('a long prompt waits for a thread that is still starting instead of holding the loop', async () => {
    const pool = startPromptPool(tok, template, { size: 1 });
    let onLoop = 0;
    const counting = { encode: (t: string, s?: boolean) => (onLoop++, tok.encode(t, s)), encoder: 'fast' as const };
    try {
      expect(pool.readyCount).toBe(0);
      const long = BIG.repeat(8);
      expect(long.length).toBeGreaterThanOrEqual(WAIT_FOR_THREAD_MIN_CHARS);
      const request = { messages: [{ role: 'user', content: long }] };
      const [text, chat] = await Promise.all([
        encodePromptText({ tokenizer: counting, pool }, long),
        encodeChatPrompt({ tokenizer: { ...counting, encoder: 'js' as const }, pool }, template, request),
      ]);
      expect(text).toEqual(tok.encode(long, false));
      expect(chat).toEqual(tok.encode(template.render(request), false));
      expect(onLoop).toBe(0);
      // A closed pool is not waited for: the loop does it.
      await pool.close();
      expect(await encodePromptText({ tokenizer: counting, pool }, long)).toEqual(tok.encode(long, false));
      expect(onLoop).toBe(1);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('retries a thread that cannot even be spawned with a back-off, not in a loop', async () => {
    let calls = 0;
    const pool = startPromptPool(tok, template, {
      size: 1,
      spawn: () => {
        calls++;
        throw new Error('no threads today');
      },
    });
    try {
      expect(calls).toBe(1);
      await expect.poll(() => calls, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
      expect(pool.encodeText(BIG)).toBeNull();
    } finally {
      await pool.close();
    }
    const after = calls;
    await new Promise((r) => setTimeout(r, 600));
    expect(calls).toBe(after);
  }, 60_000);

  it('after close: jobs in flight fail with a 500, threads are gone, prompts run on the loop', async () => {
    const pool = startPromptPool(tok, template, { size: 1 });
    await pool.whenReady(1);
    const inFlight = (pool.encodeText(BIG.repeat(20)) as Promise<number[] | null>).catch((e: unknown) => e);
    await pool.close();
    // The job either finished before the close reached the thread or failed with the pool.
    const result = await inFlight;
    if (Array.isArray(result)) expect(result).toEqual(tok.encode(BIG.repeat(20), false));
    else expectTokenizationFailed(result, /the prompt pool was closed/);
    expect(pool.readyCount).toBe(0);
    expect(pool.encodeText(BIG)).toBeNull();
    expect(await encodePromptText({ tokenizer: tok, pool }, BIG)).toEqual(tok.encode(BIG, false));
  }, 60_000);
});

describe('routing', () => {
  const askingPool = (asked: string[]) =>
    ({
      encodeChat: () => (asked.push('chat'), null),
      encodeText: (t: string) => (asked.push(`text ${t.length}`), null),
    }) as unknown as PromptPool;

  it('with the fast encoder and a compiled template: renders here, sends text from FAST_ON_LOOP_MAX_CHARS on', async () => {
    expect((tok as HfTokenizer).encoder).toBe('fast');
    expect(template.interpretedBecause).toBeNull();
    const asked: string[] = [];
    const pool = askingPool(asked);
    const small = { messages: [{ role: 'user', content: 'Hi' }] };
    const big = { messages: [{ role: 'user', content: 'y'.repeat(FAST_ON_LOOP_MAX_CHARS) }] };
    // The fake has no thread ready: the work is done here, with the same ids.
    expect(await encodeChatPrompt({ tokenizer: tok, pool }, template, small)).toEqual(tok.encode(template.render(small), false));
    expect(await encodeChatPrompt({ tokenizer: tok, pool }, template, big)).toEqual(tok.encode(template.render(big), false));
    const short = 'x'.repeat(FAST_ON_LOOP_MAX_CHARS - 1);
    const long = 'x'.repeat(FAST_ON_LOOP_MAX_CHARS);
    expect(await encodePromptText({ tokenizer: tok, pool }, short)).toEqual(tok.encode(short, false));
    expect(await encodePromptText({ tokenizer: tok, pool }, long)).toEqual(tok.encode(long, false));
    expect(asked).toEqual([`text ${template.render(big).length}`, `text ${long.length}`]);
  });

  it('with the JS library on the loop: every chat prompt to a thread, plain text from TEXT_OFF_LOOP_MIN_CHARS on', async () => {
    const asked: string[] = [];
    const pool = askingPool(asked);
    const js = { encode: (t: string, s?: boolean) => tok.encode(t, s), encoder: 'js' as const };
    const small = { messages: [{ role: 'user', content: 'Hi' }] };
    expect(await encodeChatPrompt({ tokenizer: js, pool }, template, small)).toEqual(tok.encode(template.render(small), false));
    const short = 'x'.repeat(TEXT_OFF_LOOP_MIN_CHARS - 1);
    const long = 'x'.repeat(TEXT_OFF_LOOP_MIN_CHARS);
    expect(await encodePromptText({ tokenizer: js, pool }, short)).toEqual(tok.encode(short, false));
    expect(await encodePromptText({ tokenizer: js, pool }, long)).toEqual(tok.encode(long, false));
    expect(asked).toEqual(['chat', `text ${long.length}`]);
  });

  it('works without a pool at all (contexts without one, as fakes in tests)', async () => {
    const request = { messages: [{ role: 'user', content: BIG }] };
    expect(await encodeChatPrompt({ tokenizer: tok, pool: null }, template, request)).toEqual(tok.encode(template.render(request), false));
    expect(await encodePromptText({ tokenizer: tok, pool: null }, BIG)).toEqual(tok.encode(BIG, false));
  });
});

describe('process exit', () => {
  it('an idle pool does not keep the process alive', async () => {
    const text = 'Hi the world '.repeat(200);
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      const args = ['--import', 'tsx', join(ROOT, 'test/support/idle-prompt-pool.ts'), TINY, text];
      execFile(process.execPath, args, { cwd: ROOT, timeout: 60_000 }, (err, out) => (err ? reject(err) : resolve({ stdout: out })));
    });
    expect(stdout.trim()).toBe(`ready 2 ${tok.encode(text, false).length}`);
  }, 90_000);
});
