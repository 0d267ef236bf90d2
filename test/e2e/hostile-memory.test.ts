/**
 * Huge over-context bodies against `smg launch` + a mock engine (Qwen3 tokenizer, 40,960-token
 * context): they are refused from their length before they are encoded, at most four maximum-size
 * bodies are held at once (the rest 503), /health answers promptly throughout, and the memory
 * comes back. Before: one 30 MB chat body took RSS from ~300 MB to 1 GB and kept it; eight
 * concurrent 28 MB bodies peaked at 4.6 GB with /health waiting 34 s.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rig, startRig } from './support/rig.js';

/** The process's resident set in MB (0 once it is gone). */
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

describe('huge over-context bodies (e2e)', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ engineArgs: ['--max-model-len', '40960'] });
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('8 concurrent 28 MB chat bodies: refused without encoding, /health stays fast, RSS bounded and returned', async () => {
    // Warm up (first request pays lazy setup) and take the baseline.
    await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
    const base = rssMb(rig.gatewayPid);

    const text = 'lorem ipsum dolor sit amet, '.repeat(1_000_000); // 28 MB
    const body = JSON.stringify({ model: rig.model, messages: [{ role: 'user', content: text }], max_tokens: 4 });
    let peak = base;
    let healthWorstMs = 0;
    let running = true;
    const sampler = (async () => {
      while (running) {
        peak = Math.max(peak, rssMb(rig.gatewayPid));
        const t = performance.now();
        const r = await fetch(`${rig.gatewayURL}/health`);
        await r.arrayBuffer();
        healthWorstMs = Math.max(healthWorstMs, performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = performance.now();
    let answers: Array<{ status: number; body: { error: { code: string; message: string } } }>;
    try {
      answers = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const r = await fetch(`${rig.baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          return { status: r.status, body: (await r.json()) as { error: { code: string; message: string } } };
        }),
      );
    } finally {
      running = false;
      await sampler;
    }
    const elapsedMs = performance.now() - started;

    for (const a of answers) {
      expect([400, 503]).toContain(a.status);
      if (a.status === 400) {
        expect(a.body.error.code).toBe('context_length_exceeded');
        expect(a.body.error.message).toMatch(/maximum context length is 40960 tokens\. However, your request has at least \d+ input tokens/);
      } else {
        expect(a.body.error.code).toBe('request_bodies_over_budget');
      }
    }
    expect(answers.filter((a) => a.status === 400).length).toBeGreaterThanOrEqual(4);

    // Memory: the bodies themselves (8 × 28 MB as they arrive) and no tokenization on top.
    const settleStart = performance.now();
    let after = rssMb(rig.gatewayPid);
    for (let i = 0; i < 100 && after > base + 250; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = rssMb(rig.gatewayPid);
    }
    console.log(
      `memory test: base ${base.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after ${after.toFixed(0)} MB (${(performance.now() - settleStart).toFixed(0)} ms later); ` +
        `/health worst ${healthWorstMs.toFixed(0)} ms; 8 requests answered in ${elapsedMs.toFixed(0)} ms ` +
        `(${answers.filter((a) => a.status === 400).length} × 400, ${answers.filter((a) => a.status === 503).length} × 503)`,
    );
    // Ceilings with room for a busy shared 2-core box (quiet: /health 0.7-2 s, all answered in
    // 3-8 s, peak +300-450 MB). Before, on this box: peak +1,470 MB, 37 s to answer the eight, and
    // /health 5.7 s; the box: 4.6 GB and 34 s.
    expect(peak - base).toBeLessThan(900);
    expect(elapsedMs).toBeLessThan(25_000);
    expect(healthWorstMs).toBeLessThan(6000);
    // The idle GC after big bodies (util/idle-gc.ts) gives the heap back; measured ~150 MB stays
    // above the baseline as external Buffers.
    expect(after - base).toBeLessThan(250);

    // Still serving.
    const ok = await rig.openai.chat.completions.create({ model: rig.model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 2 });
    expect(ok.choices[0].finish_reason).toBe('length');
  });
});
