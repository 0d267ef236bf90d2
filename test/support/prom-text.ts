/**
 * A strict reader of the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), with the naming rules
 * `promtool check metrics` enforces on top: every family has HELP and TYPE before its samples,
 * `_total` only on counters (and always on them), histogram buckets well formed. Returns the
 * problems found, one line each; an empty list means the text is clean.
 */

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string | null;
  help: string | null;
  samples: Sample[];
}

export interface Exposition {
  families: Map<string, Family>;
  problems: string[];
}

/** Values as Prometheus reads them (Go's strconv.ParseFloat: NaN and Inf in any letter case). */
function parseValue(raw: string): number | null {
  const lower = raw.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === '+inf' || lower === 'inf' || lower === '+infinity' || lower === 'infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) return null;
  return Number(raw);
}

/** `{a="x",b="y\"z"}` → labels, or a problem string. */
function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } | string {
  const labels: Record<string, string> = {};
  let i = 1;
  for (;;) {
    while (text[i] === ' ') i++;
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const m = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(text.slice(i));
    if (!m) return `line ${line}: bad label name at ${JSON.stringify(text.slice(i, i + 10))}`;
    const name = m[0];
    if (name.startsWith('__')) return `line ${line}: label name ${name} is reserved`;
    if (name in labels) return `line ${line}: duplicate label ${name}`;
    i += name.length;
    if (text[i] !== '=' || text[i + 1] !== '"') return `line ${line}: label ${name} is not followed by ="`;
    i += 2;
    let value = '';
    for (;;) {
      const ch = text[i];
      if (ch === undefined) return `line ${line}: unterminated value of label ${name}`;
      if (ch === '"') break;
      if (ch === '\n') return `line ${line}: raw newline in label ${name}`;
      if (ch === '\\') {
        const next = text[i + 1];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else return `line ${line}: bad escape \\${next ?? ''} in label ${name}`;
        i += 2;
        continue;
      }
      value += ch;
      i++;
    }
    labels[name] = value;
    i++;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') return `line ${line}: expected , or } after label ${name}`;
  }
}

/** The family a sample name belongs to, given the declared families. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const f = families.get(name.slice(0, -suffix.length));
    if (f && (f.type === 'histogram' || f.type === 'summary')) return f;
  }
  return undefined;
}

export function parseExposition(text: string): Exposition {
  const families = new Map<string, Family>();
  const problems: string[] = [];
  const seenSeries = new Set<string>();
  const closed = new Set<string>();
  let current: string | null = null;
  if (text !== '' && !text.endsWith('\n')) problems.push('exposition does not end with a newline');

  const declare = (name: string, line: number): Family => {
    let f = families.get(name);
    if (!f) {
      if (!METRIC_NAME.test(name)) problems.push(`line ${line}: bad metric name ${name}`);
      f = { name, type: null, help: null, samples: [] };
      families.set(name, f);
    }
    return f;
  };
  const enter = (name: string, line: number) => {
    if (current !== name) {
      if (closed.has(name)) problems.push(`line ${line}: family ${name} is split (its lines are not contiguous)`);
      if (current !== null) closed.add(current);
      current = name;
    }
  };

  text.split('\n').forEach((raw, idx) => {
    const line = idx + 1;
    if (raw === '') return;
    if (raw.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(raw);
      if (!m) return; // a plain comment
      const [, kind, name, rest = ''] = m;
      enter(name, line);
      const f = declare(name, line);
      if (f.samples.length > 0) problems.push(`line ${line}: ${kind} for ${name} after its samples`);
      if (kind === 'HELP') {
        if (f.help !== null) problems.push(`line ${line}: second HELP for ${name}`);
        f.help = rest;
      } else {
        if (f.type !== null) problems.push(`line ${line}: second TYPE for ${name}`);
        if (!TYPES.has(rest)) problems.push(`line ${line}: unknown type ${rest} for ${name}`);
        f.type = rest;
      }
      return;
    }
    const nm = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw);
    if (!nm) {
      problems.push(`line ${line}: not a sample: ${raw}`);
      return;
    }
    const name = nm[0];
    let rest = raw.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      const parsed = parseLabels(rest, line);
      if (typeof parsed === 'string') {
        problems.push(parsed);
        return;
      }
      labels = parsed.labels;
      rest = parsed.rest;
    }
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) {
      problems.push(`line ${line}: expected ' <value> [timestamp]' after ${name}`);
      return;
    }
    const value = parseValue(parts[0]);
    if (value === null) {
      problems.push(`line ${line}: bad value ${parts[0]} for ${name}`);
      return;
    }
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) problems.push(`line ${line}: bad timestamp ${parts[1]}`);
    const f = familyOf(name, families);
    if (!f) {
      problems.push(`line ${line}: sample ${name} has no preceding TYPE`);
      return;
    }
    enter(f.name, line);
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seenSeries.has(series)) problems.push(`line ${line}: duplicate series ${series}`);
    seenSeries.add(series);
    f.samples.push({ name, labels, value });
  });

  for (const f of families.values()) checkFamily(f, problems);
  return { families, problems };
}

function checkFamily(f: Family, problems: string[]): void {
  if (f.help === null || f.help.trim() === '') problems.push(`${f.name}: no HELP text`);
  if (f.type === null) problems.push(`${f.name}: no TYPE`);
  if (f.type === 'counter') {
    if (!f.name.endsWith('_total')) problems.push(`${f.name}: counter without the _total suffix`);
    for (const s of f.samples) {
      if (s.name !== f.name) problems.push(`${f.name}: counter sample named ${s.name}`);
      if (!(s.value >= 0)) problems.push(`${f.name}: counter value ${s.value}`);
    }
  } else if (f.name.endsWith('_total')) {
    problems.push(`${f.name}: ${f.type ?? 'untyped'} named with the counter suffix _total`);
  }
  if (f.type === 'gauge' || f.type === 'untyped') {
    for (const s of f.samples) if (s.name !== f.name) problems.push(`${f.name}: gauge sample named ${s.name}`);
  }
  if (f.type === 'histogram') checkHistogram(f, problems);
}

function checkHistogram(f: Family, problems: string[]): void {
  const groups = new Map<string, { buckets: [number, number][]; count: number | null; sum: number | null }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    let g = groups.get(key);
    if (!g) {
      g = { buckets: [], count: null, sum: null };
      groups.set(key, g);
    }
    if (s.name === `${f.name}_bucket`) {
      const bound = le === undefined ? null : parseValue(le);
      if (bound === null) problems.push(`${f.name}: bucket without a valid le label`);
      else g.buckets.push([bound, s.value]);
    } else if (s.name === `${f.name}_count`) g.count = s.value;
    else if (s.name === `${f.name}_sum`) g.sum = s.value;
    else problems.push(`${f.name}: histogram sample named ${s.name}`);
    if (s.name !== `${f.name}_bucket` && le !== undefined) problems.push(`${f.name}: le label on ${s.name}`);
  }
  for (const [key, g] of groups) {
    if (g.count === null || g.sum === null) problems.push(`${f.name}${key}: missing _count or _sum`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (!(g.buckets[i][0] > g.buckets[i - 1][0])) problems.push(`${f.name}${key}: bucket bounds not increasing`);
      if (g.buckets[i][1] < g.buckets[i - 1][1]) problems.push(`${f.name}${key}: bucket counts decrease`);
    }
    const inf = g.buckets.find((b) => b[0] === Infinity);
    if (!inf) problems.push(`${f.name}${key}: no +Inf bucket`);
    else if (g.count !== null && inf[1] !== g.count) problems.push(`${f.name}${key}: +Inf bucket ${inf[1]} != _count ${g.count}`);
  }
}
