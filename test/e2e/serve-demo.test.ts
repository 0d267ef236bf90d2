/**
 * `smg demo` as a user runs it: `smg serve` in-process on one mock engine (bin/mock-python) with
 * the bundled Qwen3 tokenizer, one chat completion, a clean shutdown, exit 0. Its duration is
 * printed, not asserted: on a loaded 2-core box it ranges from 3 s to over 20 s.
 */
import { describe, expect, it } from 'vitest';
import { runSmg } from './support/proc.js';
import { isGone } from './support/serve-kit.js';

describe('smg demo (e2e)', () => {
  it('serves one chat completion on a mock engine and shuts down cleanly', async () => {
    const t0 = performance.now();
    const demo = runSmg(['demo']);
    const code = await demo.exited;
    const ms = performance.now() - t0;
    console.log(`[measure] smg demo end to end: ${ms.toFixed(0)} ms`);
    const out = demo.output();
    expect(code, out).toBe(0);
    expect(out).toContain('$ smg serve --backend vllm --connection-mode zmq --python bin/mock-python');
    expect(out).toContain('engine-0: handshake done (context length 4096)');
    expect(out).toContain('< Hello! This is a scripted reply from the smg mock engine.');
    expect(out).toMatch(/finish_reason=stop; usage: \d+ prompt \+ \d+ completion = \d+ tokens/);
    expect(out).toContain('Stopped: gateway drained, engine terminated.');

    // The engine was a child of the demo; its pid is in no log at warn level, so look for any
    // mock engine still running from this demo's socket directory.
    const dir = /ipc:\/\/(\/\S+)\/engine-\d+/.exec(out)?.[1];
    expect(dir).toBeDefined();
    const { readdir, readFile } = await import('node:fs/promises');
    for (const pid of (await readdir('/proc')).filter((n) => /^\d+$/.test(n))) {
      const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (cmd.includes('mock-python') && cmd.includes(dir!)) expect(await isGone(Number(pid))).toBe(true);
    }
  });
});
