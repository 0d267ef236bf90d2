/**
 * Histograms and counters for the per-token and per-request hot path, registered in the same
 * prom-client Registry. prom-client's label children still convert, validate and hash their labels
 * on every `observe`/`inc` (a few µs): per generated token that was measurable (a stream at C=32
 * cost ~1.5× the gateway CPU with vLLM's inter-token histogram on prom-client). Here a child is
 * resolved once and an observation is a bucket search and three additions.
 *
 * The registry only needs `name` and `get()` from a metric: it writes the HELP/TYPE lines and the
 * samples `get()` returns, exactly as for its own metrics.
 */
import type { Metric, Registry } from 'prom-client';

type Labels = Record<string, string>;

/** What the registry reads from `get()` (prom-client's MetricObjectWithValues, less its collect hook). */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}
interface MetricSnapshot {
  name: string;
  help: string;
  type: 'histogram' | 'counter';
  values: Sample[];
  aggregator: 'sum';
}

export interface HistogramChild {
  observe(value: number): void;
}

export interface CounterChild {
  inc(value?: number): void;
}

class HistogramSeries implements HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) return;
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]) i++;
    if (i < b.length) this.counts[i] += 1;
    this.sum += value;
    this.count += 1;
  }
}

class CounterSeries implements CounterChild {
  value = 0;
  constructor(readonly labels: Labels) {}

  inc(value = 1): void {
    if (value > 0) this.value += value;
  }
}

const key = (labelNames: readonly string[], labels: Labels) => labelNames.map((n) => labels[n] ?? '').join('\u0000');

function register(registers: readonly Registry[], metric: { name: string }): void {
  // The registry reads `name` and `get()` (and `reset()` on resetMetrics) of what it holds.
  for (const r of registers) r.registerMetric(metric as unknown as Metric);
}

export class FastHistogram {
  readonly name: string;
  readonly help: string;
  private readonly series = new Map<string, HistogramSeries>();
  private readonly bounds: number[];
  private readonly labelNames: readonly string[];

  constructor(opts: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registers: readonly Registry[] }) {
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = opts.labelNames;
    this.bounds = [...opts.buckets].sort((a, b) => a - b);
    register(opts.registers, this);
  }

  /** The child of one label set, made on first use; keep it instead of asking again. */
  labels(labels: Labels): HistogramChild {
    const k = key(this.labelNames, labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = new HistogramSeries({ ...labels }, this.bounds)));
    return s;
  }

  reset(): void {
    this.series.clear();
  }

  get(): MetricSnapshot {
    const values: Sample[] = [];
    for (const s of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}

export class FastCounter {
  readonly name: string;
  readonly help: string;
  private readonly series = new Map<string, CounterSeries>();
  private readonly labelNames: readonly string[];

  constructor(opts: { name: string; help: string; labelNames: readonly string[]; registers: readonly Registry[] }) {
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = opts.labelNames;
    register(opts.registers, this);
  }

  labels(labels: Labels): CounterChild {
    const k = key(this.labelNames, labels);
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = new CounterSeries({ ...labels })));
    return s;
  }

  reset(): void {
    this.series.clear();
  }

  get(): MetricSnapshot {
    const values = [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value }));
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: 'sum' };
  }
}
