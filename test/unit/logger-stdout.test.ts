/**
 * Log lines on the process's stdout are written once per event-loop turn (util/logger.ts): in a
 * real child process, every line still arrives, in the order logged across loggers, when the
 * process ends by process.exit() or an uncaught exception right after logging.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function run(end: string) {
  const script = `
    import { createLogger } from './src/util/logger.ts';
    const a = createLogger({ level: 'info' });
    const b = createLogger({ level: 'info', json: true });
    for (let i = 0; i < 3; i++) { a.info({ n: i }, 'plain ' + i); b.warn('json ' + i); }
    ${end}
  `;
  return spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['--eval', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
}

function order(stdout: string): string[] {
  return stdout.split('\n').filter(Boolean).map((l) => (/(plain|json) \d/.exec(l) ?? ['?'])[0]);
}

const LOGGED = ['plain 0', 'json 0', 'plain 1', 'json 1', 'plain 2', 'json 2'];

describe('log lines on stdout', () => {
  it('all arrive, in order, when the process exits in the same turn', () => {
    const r = run('process.exit(3);');
    expect(r.status).toBe(3);
    expect(order(r.stdout)).toEqual(LOGGED);
    expect(r.stdout).toMatch(/^\S+Z INFO  plain 0 n=0$/m);
  });

  it('all arrive when an uncaught exception ends the process', () => {
    const r = run("throw new Error('boom');");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('boom');
    expect(order(r.stdout)).toEqual(LOGGED);
  });

  it('all arrive when the process ends on its own', () => {
    const r = run("setTimeout(() => a.info('later'), 20);");
    expect(r.status).toBe(0);
    expect(order(r.stdout)).toEqual([...LOGGED, '?']);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/INFO  later$/);
  });
});
