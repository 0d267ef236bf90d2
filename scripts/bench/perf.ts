/**
 * Optional Linux `perf` sampling of the gateway during the measured phases (--perf FILE). Unlike
 * V8's --cpu-prof it sees native time (GC, libuv, zeromq, syscalls) and attributes JIT frames
 * through the gateway's --perf-basic-prof map, so "inclusive" numbers are trustworthy.
 * SMG_BENCH_PERF_HZ sets the sampling rate (default 499 Hz; a 1.5 s burst wants ~3000).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Node flags the gateway needs so perf can name JS frames. */
export const PERF_NODE_FLAGS = ['--perf-basic-prof', '--interpreted-frames-native-stack'];

export class PerfRecorder {
  private proc: ChildProcess | null = null;
  private exited: Promise<void> | null = null;
  private stderr = '';

  constructor(
    readonly pid: number,
    readonly file: string,
  ) {}

  /**
   * Resolves once perf is sampling: perf starts with its events disabled (-D -1) and enables them
   * on a command over a control FIFO, acknowledging on a second one. Spawning perf and opening its
   * events takes 100-300 ms on this box, so a phase started right after spawn() lost its first
   * fraction of a second (for the arrival burst: the whole intake).
   */
  async start(): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'smg-perf-'));
    const ctl = join(dir, 'ctl');
    const ack = join(dir, 'ack');
    await run('mkfifo', [ctl, ack]);
    this.proc = spawn('perf', ['record', '-F', process.env.SMG_BENCH_PERF_HZ ?? '499', '-g', '-p', String(this.pid), '-o', this.file, '-D', '-1', '--control', `fifo:${ctl},${ack}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    this.proc.stderr?.setEncoding('utf8');
    this.proc.stderr?.on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => {
      this.proc!.once('exit', () => resolve());
      this.proc!.once('error', (err) => {
        this.stderr += `spawn failed: ${err.message}`;
        resolve();
      });
    });
    // Opening a FIFO waits for its other end; if perf dies first, kill the wait by opening the ends ourselves.
    const died = this.exited.then(async () => {
      await Promise.all([open(ctl, 'r+').then((h) => h.close()), open(ack, 'r+').then((h) => h.close())]).catch(() => {});
    });
    try {
      const ctlFile = await open(ctl, 'w');
      const ackFile = await open(ack, 'r');
      await ctlFile.write('enable\n');
      const buf = Buffer.alloc(16);
      await Promise.race([ackFile.read(buf, 0, buf.length, null), died]);
      await Promise.all([ctlFile.close(), ackFile.close()]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** SIGINT makes perf flush and write its file. */
  async stop(): Promise<string> {
    if (!this.proc || !this.exited) return 'perf was not started';
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGINT');
    const timer = setTimeout(() => this.proc?.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
    return this.stderr.trim();
  }
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

function rows(report: string): { pct: number; line: string }[] {
  const out: { pct: number; line: string }[] = [];
  for (const line of report.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?(.*)$/.exec(line);
    if (m) out.push({ pct: Number(m[1]), line: m[3].replace(/^\[[.k]\]\s+/, '') });
  }
  return out;
}

/** Text summary: JS frames by inclusive time, all symbols by self time, and shares by DSO. */
export async function summarizePerf(file: string, pid: number, top: number): Promise<string> {
  const base = ['report', '-i', file, '--stdio', '-g', 'none'];
  const [children, self, dso] = await Promise.all([
    run('perf', [...base, '--children', '--sort', 'sym']),
    run('perf', [...base, '--no-children', '--sort', 'sym']),
    run('perf', [...base, '--no-children', '--sort', 'comm,dso']),
  ]);
  // file:///…/src/x.ts and /…/node_modules/y.cjs → src/x.ts, node_modules/y.cjs
  const clean = (s: string) => s.replace(/(?:file:\/\/)?\/[^ ]*?\/(src|node_modules|scripts)\//g, '$1/');
  const jsInclusive = rows(children).filter((r) => r.line.startsWith('JS:') && !r.line.includes('processTicksAndRejections'));
  const lines: string[] = [];
  lines.push(`perf profile of the gateway (pid ${pid}) during the measured phases: ${file}`);
  lines.push('  (all threads; % of samples. Inspect with: perf report -i FILE --children)');
  lines.push('');
  lines.push('  By thread and object:');
  for (const r of rows(dso).slice(0, 12)) lines.push(`    ${r.pct.toFixed(1).padStart(5)}%  ${r.line}`);
  lines.push('');
  lines.push('  JS frames by inclusive time (async continuations are not stitched; a frame counts');
  lines.push('  what ran under it synchronously):');
  for (const r of jsInclusive.slice(0, top)) lines.push(`    ${r.pct.toFixed(1).padStart(5)}%  ${clean(r.line.slice(3))}`);
  lines.push('');
  lines.push('  Symbols by self time:');
  for (const r of rows(self).slice(0, top)) lines.push(`    ${r.pct.toFixed(1).padStart(5)}%  ${clean(r.line)}`);
  return lines.join('\n');
}

export async function removePerfMap(pid: number): Promise<void> {
  await rm(`/tmp/perf-${pid}.map`, { force: true });
}
