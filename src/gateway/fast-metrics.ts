/**
 * Histograms and counters for the per-token and per-request hot path, registered in the same
 * prom-client Registry. prom-client's label children still convert, validate and hash their labels
 * on every `observe`/`inc` (a few µs): per generated token that was measurable (a stream at C=32
 * cost ~1.5× the gateway CPU with vLLM's inter-token histogram on prom-client). Here a child is
 * resolved once and an observation is a bucket search and three additions.
 *
 * The registry only needs `name` and `get()` from a metric: it writes the HELP/TYPE lines and the
 * samples `get()` returns, exactly as for its own metrics.
 *
 * Two exposition forms: vLLM's (prometheus_client: a child is listed, at 0, from the moment it is
 * made, and `le` is a bucket's last label) and prom-client's, for the smg_* metrics that were
 * prom-client's own until their per-request cost showed in the short-request profile (a series is
 * listed from its first `inc`/`observe`, `le` comes first): the /metrics text stays what it was.
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

/** prom-client's exposition: listed from the first observation, `le` first. */
export interface ExpositionForm {
  promClient?: boolean;
}

/** Where a child that is listed only once used goes (prom-client's form). */
type Listing<T> = (child: T) => void;

class HistogramSeries implements HistogramChild {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
    /** Set until the first observation lists this child (prom-client's form). */
    public unlisted: Listing<HistogramSeries> | null = null,
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (this.unlisted !== null) {
      this.unlisted(this);
      this.unlisted = null;
    }
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
  constructor(
    readonly labels: Labels,
    /** Set until the first `inc` (even of 0, as prom-client) lists this child (prom-client's form). */
    public unlisted: Listing<CounterSeries> | null = null,
  ) {}

  inc(value = 1): void {
    if (this.unlisted !== null) {
      this.unlisted(this);
      this.unlisted = null;
    }
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
  /** The children made, by label values; `listed` holds those shown (all of them in vLLM's form). */
  private readonly children = new Map<string, HistogramSeries>();
  private listed = new Set<HistogramSeries>();
  private readonly bounds: number[];
  private readonly labelNames: readonly string[];
  private readonly promClient: boolean;
  private readonly list: Listing<HistogramSeries> = (s) => this.listed.add(s);

  constructor(opts: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; registers: readonly Registry[] } & ExpositionForm) {
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = opts.labelNames;
    this.bounds = [...opts.buckets].sort((a, b) => a - b);
    this.promClient = opts.promClient === true;
    register(opts.registers, this);
  }

  /** The child of one label set, made on first use; keep it instead of asking again. */
  labels(labels: Labels): HistogramChild {
    const k = key(this.labelNames, labels);
    let s = this.children.get(k);
    if (!s) {
      this.children.set(k, (s = new HistogramSeries({ ...labels }, this.bounds, this.promClient ? this.list : null)));
      if (!this.promClient) this.listed.add(s);
    }
    return s;
  }

  reset(): void {
    // Children already handed out stay valid: zeroed, and (prom-client's form) unlisted again.
    for (const s of this.children.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
      s.unlisted = this.promClient ? this.list : null;
    }
    if (this.promClient) this.listed = new Set();
  }

  get(): MetricSnapshot {
    const values: Sample[] = [];
    const leFirst = this.promClient;
    for (const s of this.listed) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: leFirst ? { le, ...s.labels } : { ...s.labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: leFirst ? { le: '+Inf', ...s.labels } : { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: 'sum' };
  }
}

export class FastCounter {
  readonly name: string;
  readonly help: string;
  private readonly children = new Map<string, CounterSeries>();
  private listed = new Set<CounterSeries>();
  private readonly labelNames: readonly string[];
  private readonly promClient: boolean;
  private readonly list: Listing<CounterSeries> = (s) => this.listed.add(s);

  constructor(opts: { name: string; help: string; labelNames: readonly string[]; registers: readonly Registry[] } & ExpositionForm) {
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = opts.labelNames;
    this.promClient = opts.promClient === true;
    register(opts.registers, this);
  }

  labels(labels: Labels): CounterChild {
    const k = key(this.labelNames, labels);
    let s = this.children.get(k);
    if (!s) {
      this.children.set(k, (s = new CounterSeries({ ...labels }, this.promClient ? this.list : null)));
      if (!this.promClient) this.listed.add(s);
    }
    return s;
  }

  /** prom-client's `counter.inc(labels, value)`, for the rarely counted series (no child kept). */
  inc(labels: Labels, value = 1): void {
    this.labels(labels).inc(value);
  }

  reset(): void {
    for (const s of this.children.values()) {
      s.value = 0;
      s.unlisted = this.promClient ? this.list : null;
    }
    if (this.promClient) this.listed = new Set();
  }

  get(): MetricSnapshot {
    const values = [...this.listed].map((s) => ({ labels: s.labels, value: s.value }));
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: 'sum' };
  }
}
