/**
 * Helpers for the token-format tool-parser tests: run a parser over deltas, the splits used to
 * compare streaming with non-streaming, and structural checks on streamed items.
 */
import { expect } from 'vitest';
import { foldItems, type FoldedOutput, type ParsedItem } from '../../src/pipeline/parsers/types.js';
import type { ToolParserSpec, ToolSchema } from '../../src/pipeline/parsers/tools/types.js';
import { allSplits, randomSplits } from '../support/splits.js';

export function streamItems(spec: ToolParserSpec, tools: readonly ToolSchema[], deltas: readonly string[]): ParsedItem[] {
  const p = spec.create(tools);
  const items: ParsedItem[] = [];
  for (const d of deltas) items.push(...p.push(d));
  items.push(...p.finish());
  return items;
}

export function foldParse(spec: ToolParserSpec, tools: readonly ToolSchema[], text: string): FoldedOutput {
  return foldItems(spec.parse(text, tools));
}

/**
 * Splits of `text` for stream-vs-parse checks: a cut at every position, every pair of cuts for
 * short texts, one code point per delta, and seeded random splits.
 */
export function* splitsFor(text: string, seed = 7, random = 120): Generator<string[]> {
  const cps = Array.from(text);
  const n = cps.length;
  const join = (a: number, b: number) => cps.slice(a, b).join('');
  for (let i = 1; i < n; i++) yield [join(0, i), join(i, n)];
  if (n <= 90) {
    for (let i = 1; i < n; i++) for (let j = i + 1; j < n; j++) yield [join(0, i), join(i, j), join(j, n)];
  }
  yield* randomSplits(text, random, seed, 6);
  yield* randomSplits(text, random / 4, seed + 1, 24);
}

/**
 * Every split of `text` where each of `atoms` (special tokens) stays whole: the text is mapped
 * to one private-use code point per atom or character, split with allSplits, and mapped back.
 * Keep texts to at most 16 units.
 */
export function* atomicAllSplits(text: string, atoms: readonly string[]): Generator<string[]> {
  const units: string[] = [];
  let i = 0;
  outer: while (i < text.length) {
    for (const a of atoms) {
      if (text.startsWith(a, i)) {
        units.push(a);
        i += a.length;
        continue outer;
      }
    }
    const cp = String.fromCodePoint(text.codePointAt(i)!);
    units.push(cp);
    i += cp.length;
  }
  if (units.length > 16) throw new Error(`atomicAllSplits: ${units.length} units (max 16)`);
  const encoded = units.map((_, k) => String.fromCharCode(0xe000 + k)).join('');
  for (const parts of allSplits(encoded)) {
    yield parts.map((p) => Array.from(p, (c) => units[c.charCodeAt(0) - 0xe000]).join(''));
  }
}

/**
 * What every parser's stream must satisfy, whatever the split: calls numbered 0, 1, … in order,
 * arguments only for the latest started call, and each call's arguments one JSON object.
 * Returns a description of the first violation, or null.
 */
export function structureProblem(items: readonly ParsedItem[]): string | null {
  let next = 0;
  const args: string[] = [];
  for (const it of items) {
    if (it.kind === 'tool_start') {
      if (it.tool !== next) return `tool_start ${it.tool}, expected ${next}`;
      next++;
      args.push('');
    } else if (it.kind === 'tool_args') {
      if (it.tool !== next - 1) return `tool_args for ${it.tool} while the latest call is ${next - 1}`;
      args[it.tool] += it.text;
    }
  }
  for (let i = 0; i < args.length; i++) {
    let v: unknown;
    try {
      v = JSON.parse(args[i]);
    } catch {
      return `call ${i} arguments are not JSON: ${args[i]}`;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return `call ${i} arguments are not an object: ${args[i]}`;
  }
  return null;
}

/** Streaming over each split folds to the non-streaming result, with a sound item structure. */
export function expectStreamMatchesParse(
  spec: ToolParserSpec,
  tools: readonly ToolSchema[],
  text: string,
  splits: Iterable<string[]>,
): number {
  const whole = spec.parse(text, tools);
  expect(structureProblem(whole)).toBeNull();
  const expected = foldItems(whole);
  let count = 0;
  for (const deltas of splits) {
    const items = streamItems(spec, tools, deltas);
    const got = foldItems(items);
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      expect({ deltas, got }).toEqual({ deltas, got: expected });
    }
    const problem = structureProblem(items);
    if (problem) expect({ deltas, problem }).toEqual({ deltas, problem: null });
    count++;
  }
  return count;
}
