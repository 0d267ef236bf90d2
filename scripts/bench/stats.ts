/** Percentiles and number formatting for the bench tables. */

/** Nearest-rank percentile of an ascending-sorted array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * n);
  return sorted[Math.min(n - 1, Math.max(0, rank - 1))];
}

export interface Pcts {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  count: number;
}

export function summarize(values: ArrayLike<number>): Pcts {
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) sum += sorted[i];
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    count: sorted.length,
  };
}

/** A growable Float64 buffer: ITL samples run into the hundreds of thousands per phase. */
export class Samples {
  private buf = new Float64Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = v;
  }

  view(): Float64Array {
    return this.buf.subarray(0, this.length);
  }
}

export function fmtNum(v: number, digits = 0): string {
  if (!Number.isFinite(v)) return '-';
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Milliseconds with precision that suits the magnitude. */
export function fmtMs(v: number): string {
  if (!Number.isFinite(v)) return '-';
  if (v < 1) return v.toFixed(3);
  if (v < 10) return v.toFixed(2);
  if (v < 100) return v.toFixed(1);
  return v.toFixed(0);
}

export function fmtRatio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '-';
  return `${(a / b).toFixed(2)}×`;
}

export function pad(s: string, w: number, right = true): string {
  return right ? s.padStart(w) : s.padEnd(w);
}
