/**
 * Tool-parser micro-benchmark: ns per `push()` for every registered tool parser and for Harmony's
 * call-argument stream, all fed in token-sized deltas (1–6 characters):
 *
 * - plain: prose without tool calls (the per-token path every chat response with tools takes);
 * - call: the parser's first fixture in its own format, repeated;
 * - long: one call whose string argument is ~20 KB (where a parser that re-reads or re-copies its
 *   buffer per delta shows up).
 *
 * Each parser runs in a process of its own, as in a gateway (which reads one model's format): all
 * parsers share the streaming frame (stream-base.ts), and running them all in one process makes
 * the frame's property accesses megamorphic, which no gateway process sees. `--same-process` runs
 * them all in this one instead.
 *
 *   npx tsx scripts/tool-parser-bench.ts [--rounds R] [--chars N] [--only NAME,NAME] [--same-process]
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CallArgumentsStream } from '../src/pipeline/harmony/call-args.js';
import { JSON_FAMILY_TOOL_PARSERS } from '../src/pipeline/parsers/tools/registry-json.js';
import { TOKEN_FORMAT_TOOL_PARSERS } from '../src/pipeline/parsers/tools/registry-tokens.js';
import type { ToolParserSpec, ToolSchema } from '../src/pipeline/parsers/tools/types.js';
import { FIXTURES, TOOLS } from '../test/fixtures/tools/json-family.js';
import { TOKEN_FORMAT_FIXTURES } from '../test/fixtures/tools/token-format.js';
import { TOKEN_FORMAT_TOOLS } from '../test/fixtures/tools/token-format-tools.js';
import { rng } from '../test/support/splits.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const rounds = Number(arg('rounds', '5'));
const chars = Number(arg('chars', '200000'));
const only = arg('only', '').split(',').filter((s) => s.length > 0);
const child = process.argv.includes('--child');
const isolate = !child && !process.argv.includes('--same-process');

function deltas(text: string, seed: number): string[] {
  const next = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(next() * 6);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function plainText(n: number): string {
  const words = ['the', 'weather', 'in', 'Paris', 'is', 'mild,', 'with', 'light', 'rain', 'expected.', 'Café', '東京', '😀', '\n\n'];
  const next = rng(1);
  let s = '';
  while (s.length < n) s += words[Math.floor(next() * words.length)] + ' ';
  return s;
}

/** ~20 KB of code-like text: quotes, newlines, indentation, markup. */
const LONG = (() => {
  const line = '    if (a < b) { return "x\'s" + f(`y`); } // naïve 😀\n';
  return line.repeat(Math.ceil(20000 / line.length));
})();
const J = JSON.stringify(LONG);
const PY = `'${LONG.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
const DS = { calls: '<｜tool▁calls▁begin｜>', call: '<｜tool▁call▁begin｜>', sep: '<｜tool▁sep｜>', end: '<｜tool▁call▁end｜>', callsEnd: '<｜tool▁calls▁end｜>' };
const D = '｜DSML｜';

/** One call with a ~20 KB string argument, per parser (JSON-family: write_file.content; token formats: search.query). */
const LONG_CALLS: Record<string, string> = {
  json: `{"name": "write_file", "arguments": {"path": "a.ts", "content": ${J}}}`,
  mistral: `[TOOL_CALLS]write_file[ARGS]{"path": "a.ts", "content": ${J}}`,
  qwen: `<tool_call>\n{"name": "write_file", "arguments": {"path": "a.ts", "content": ${J}}}\n</tool_call>`,
  qwen_xml: `<tool_call>\n<function=write_file>\n<parameter=path>\na.ts\n</parameter>\n<parameter=content>\n${LONG}\n</parameter>\n</function>\n</tool_call>`,
  pythonic: `[write_file(path='a.ts', content=${PY})]`,
  llama: `<|python_tag|>{"name": "write_file", "parameters": {"path": "a.ts", "content": ${J}}}`,
  deepseek: `${DS.calls}${DS.call}function${DS.sep}write_file\n\`\`\`json\n{"path": "a.ts", "content": ${J}}\n\`\`\`${DS.end}${DS.callsEnd}`,
  deepseek31: `${DS.calls}${DS.call}write_file${DS.sep}{"path": "a.ts", "content": ${J}}${DS.end}${DS.callsEnd}`,
  deepseek32: `<${D}function_calls>\n<${D}invoke name="write_file">\n<${D}parameter name="content" string="true">${LONG}</${D}parameter>\n</${D}invoke>\n</${D}function_calls>`,
  deepseek_v4: `<${D}tool_calls>\n<${D}invoke name="write_file">\n<${D}parameter name="content" string="true">${LONG}</${D}parameter>\n</${D}invoke>\n</${D}tool_calls>`,
  glm45_moe: `<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>${LONG}</arg_value>\n</tool_call>`,
  glm47_moe: `<tool_call>search<arg_key>query</arg_key><arg_value>${LONG}</arg_value></tool_call>`,
  kimik2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{"query": ${J}}<|tool_call_end|><|tool_calls_section_end|>`,
  kimi_k3: `<|open|>tools<|sep|><|open|>call tool="search" index="1"<|sep|><|open|>argument key="query" type="string"<|sep|>${LONG}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>`,
  minimax_m2: `<minimax:tool_call>\n<invoke name="search">\n<parameter name="query">${LONG}</parameter>\n</invoke>\n</minimax:tool_call>`,
  step3: `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="search"><steptml:parameter name="query">${LONG}</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`,
  cohere: `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "search", "parameters": {"query": ${J}}}]<|END_ACTION|>`,
  sarashina: `<|tool_calls|>[{'name': 'search', 'arguments': {'query': ${PY}}}]`,
  inkling: `<|message_model|>search<|content_invoke_tool_json|>{"args":{"query":${J}},"name":"search"}<|end_message|>`,
};

/** Items seen, so the work is not optimized away. */
let seen = 0;

/** Best ns per push over `rounds` runs after a warm-up run, feeding `parts` to fresh parsers `repeat` times. */
function measure(run: () => void, pushes: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let r = -1; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    run();
    if (r < 0) continue;
    const ns = Number(process.hrtime.bigint() - t0) / pushes;
    if (ns < best) best = ns;
  }
  return best;
}

function measureParser(spec: ToolParserSpec, tools: readonly ToolSchema[], parts: string[], repeat: number): number {
  return measure(() => {
    for (let k = 0; k < repeat; k++) {
      const p = spec.create(tools);
      for (const d of parts) seen += p.push(d).length;
      seen += p.finish().length;
    }
  }, parts.length * repeat);
}

function measureHarmony(parts: string[], repeat: number): number {
  return measure(() => {
    for (let k = 0; k < repeat; k++) {
      const s = new CallArgumentsStream();
      for (const d of parts) seen += s.push(d).length;
      seen += s.finish().length;
    }
  }, parts.length * repeat);
}

const fmt = (ns: number): string => (Number.isNaN(ns) ? '-' : ns.toFixed(0)).padStart(8);
const plain = deltas(plainText(chars), 2);
const wanted = (name: string): boolean => only.length === 0 || only.includes(name);

if (!child) {
  console.log(`ns per push (best of ${rounds}${isolate ? ', one process per parser' : ', all in one process'}); plain: ${plain.length} deltas; call: the parser's first fixture, repeated; long: one ~20 KB string argument`);
  console.log('parser'.padEnd(14), 'plain'.padStart(8), 'call'.padStart(8), 'long'.padStart(8), '  call fixture');
}
if (isolate) {
  const names = [...JSON_FAMILY_TOOL_PARSERS, ...TOKEN_FORMAT_TOOL_PARSERS].map((p) => p.name).concat('harmony').filter(wanted);
  for (const name of names) {
    const args = [...process.execArgv, fileURLToPath(import.meta.url), '--child', '--only', name, '--rounds', String(rounds), '--chars', String(chars)];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
    process.stdout.write(r.stdout);
    if (r.status !== 0) process.stderr.write(r.stderr);
  }
  process.exit(0);
}

const families: Array<[ToolParserSpec[], readonly ToolSchema[], (name: string) => { name: string; text: string } | undefined]> = [
  [JSON_FAMILY_TOOL_PARSERS, TOOLS, (name) => FIXTURES.find((f) => f.parser === name)],
  [TOKEN_FORMAT_TOOL_PARSERS, TOKEN_FORMAT_TOOLS, (name) => TOKEN_FORMAT_FIXTURES[name]?.[0]],
];
for (const [specs, tools, fixtureOf] of families) {
  for (const spec of specs) {
    if (!wanted(spec.name)) continue;
    const plainNs = measureParser(spec, tools, plain, 1);
    const fixture = fixtureOf(spec.name);
    let callNs = Number.NaN;
    if (fixture) {
      const parts = deltas(fixture.text, 3);
      callNs = measureParser(spec, tools, parts, Math.max(1, Math.floor(50000 / parts.length)));
    }
    const long = LONG_CALLS[spec.name];
    const longNs = long ? measureParser(spec, tools, deltas(long, 4), 3) : Number.NaN;
    console.log(spec.name.padEnd(14), fmt(plainNs), fmt(callNs), fmt(longNs), ' ', fixture?.name ?? '-');
  }
}

if (wanted('harmony')) {
  // Harmony: the call's message content only (the channel parser hands it to CallArgumentsStream).
  const compact = JSON.stringify({ city: 'São Paulo', days: 3, filters: { lang: ['pt', 'en'], open: true }, note: 'a "quoted" word' });
  const spaced = JSON.stringify(JSON.parse(compact), null, 2);
  const longArgs = JSON.stringify({ path: 'a.ts', content: LONG });
  const h = (text: string, repeat: number) => measureHarmony(deltas(text, 5), repeat);
  console.log('harmony args'.padEnd(14), fmt(Number.NaN), fmt(h(compact, 2000)), fmt(h(longArgs, 3)), '  compact object (call), ~20 KB string (long)');
  console.log('harmony spaced'.padEnd(14), fmt(Number.NaN), fmt(h(spaced, 2000)), fmt(Number.NaN), '  the same object pretty-printed');
}
if (seen === 0) console.log('no output?');
