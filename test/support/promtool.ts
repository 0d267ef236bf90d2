/**
 * `promtool check metrics` (Debian's `prometheus` package) over an exposition. Returns null when
 * promtool is not installed, else the problems it printed, one per line.
 *
 * One finding is expected and left out: promtool's naming lint refuses `:` in metric names
 * (reserved by convention for recording rules), and vLLM's own names are `vllm:…`. vLLM's /metrics
 * trips the same lint; the names are kept because dashboards query them. Every other problem in
 * those families (HELP, TYPE, `_total`, buckets) is still reported.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const VLLM_COLON = /^vllm:[a-zA-Z0-9_]+ metric names should not contain ':'$/;

function promtoolPath(): string | null {
  for (const p of [process.env.PROMTOOL, 'promtool'].filter((x): x is string => !!x)) {
    try {
      execFileSync(p, ['--version'], { stdio: 'ignore' });
      return p;
    } catch {
      // not installed under that name
    }
  }
  return null;
}

export function promtoolProblems(text: string): { problems: string[]; vllmColonNames: number } | null {
  const tool = promtoolPath();
  if (!tool) return null;
  const file = join(mkdtempSync(join(tmpdir(), 'smg-prom-')), 'metrics.txt');
  writeFileSync(file, text);
  // `check metrics` exits non-zero on any lint problem and names it on stdout.
  const out = execFileSync('sh', ['-c', `"${tool}" check metrics < "${file}" 2>&1; echo "exit=$?"`]).toString();
  const lines = out.trim().split('\n');
  const exit = lines.pop();
  const colon = lines.filter((l) => VLLM_COLON.test(l));
  const problems = lines.filter((l) => !VLLM_COLON.test(l));
  if (exit !== 'exit=0' && colon.length === 0) problems.push(exit ?? 'no exit status');
  return { problems, vllmColonNames: colon.length };
}
