/**
 * Optional Linux `perf` sampling of the gateway during the measured phases (--perf FILE). Unlike
 * V8's --cpu-prof it sees native time (GC, libuv, zeromq, syscalls) and attributes JIT frames
 * through the gateway's --perf-basic-prof map, so "inclusive" numbers are trustworthy.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';

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

  start(): void {
    this.proc = spawn('perf', ['record', '-F', '499', '-g', '-p', String(this.pid), '-o', this.file], {
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
