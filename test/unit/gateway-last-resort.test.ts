/**
 * The rejection guard in a real child process: an unhandled rejection is logged as a bug and the
 * process goes on (Node's default would end it with code 1).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function run(guard: boolean) {
  const script = `
    import { createLogger } from './src/util/logger.ts';
    import { installRejectionGuard } from './src/gateway/last-resort.ts';
    if (${guard}) installRejectionGuard(createLogger({ level: 'info' }));
    void Promise.reject(new RangeError('Maximum call stack size exceeded'));
    setTimeout(() => console.log('still serving'), 200);
  `;
  return spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['--eval', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

describe('unhandled rejection guard', () => {
  it('logs the rejection with its stack and keeps the process', () => {
    const r = run(true);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('still serving');
    expect(r.stdout).toMatch(/ERROR\s+BUG: unhandled promise rejection .*Maximum call stack size exceeded/s);
  });

  it('without it, Node ends the process (what the guard prevents)', () => {
    const r = run(false);
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('still serving');
  });
});
