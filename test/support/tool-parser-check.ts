/**
 * Checks for tool-call parsers: the non-streaming items, and "streamed equals non-streamed" over
 * splits of the text into deltas (request-pipeline §11.3; the contract in parsers/types.ts).
 */
import { expect } from 'vitest';
import { type FoldedOutput, foldItems, type ParsedItem } from '../../src/pipeline/parsers/types.js';
import type { ToolParserSpec, ToolSchema } from '../../src/pipeline/parsers/tools/types.js';

/** Feeds `deltas` to a fresh streaming parser; returns every item, `finish()`'s included. */
export function streamItems(spec: ToolParserSpec, tools: readonly ToolSchema[], deltas: Iterable<string>): ParsedItem[] {
  const p = spec.create(tools);
  const items: ParsedItem[] = [];
  for (const d of deltas) items.push(...p.push(d));
  items.push(...p.finish());
  return items;
}

export function fold(items: Iterable<ParsedItem>): FoldedOutput {
  return foldItems(items);
}

/** Item-stream invariants a client relies on: calls numbered 0,1,2… in order, args only for started calls, no empty pieces. */
export function expectWellFormed(items: readonly ParsedItem[]): void {
  let started = 0;
  for (const it of items) {
    if (it.kind === 'tool_start') {
      expect(it.tool).toBe(started);
      started++;
    } else if (it.kind === 'tool_args') {
      expect(it.tool).toBeLessThan(started);
      expect(it.text.length).toBeGreaterThan(0);
    } else expect(it.text.length).toBeGreaterThan(0);
  }
}

/** Every streamed split folds to `expected`, and its items are well formed. */
export function expectSplitsFold(
  spec: ToolParserSpec,
  tools: readonly ToolSchema[],
  splits: Iterable<string[]>,
  expected: FoldedOutput,
): number {
  let n = 0;
  for (const deltas of splits) {
    const items = streamItems(spec, tools, deltas);
    const got = fold(items);
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      expect({ deltas, got }).toEqual({ deltas, got: expected });
    }
    expectWellFormed(items);
    n++;
  }
  return n;
}

/** Each call's arguments parse as JSON (what a client does with them). */
export function expectArgsParse(out: FoldedOutput): void {
  for (const c of out.calls) expect(() => JSON.parse(c.arguments), c.arguments).not.toThrow();
}

export function call(name: string, args: unknown): { name: string; arguments: string } {
  return { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) };
}

export function folded(text: string, calls: Array<{ name: string; arguments: string }> = []): FoldedOutput {
  return { text, reasoning: '', calls };
}

/** Every split of `text` into two pieces, and into three when `three` (cuts on code points). */
export function* cutSplits(text: string, three: boolean): Generator<string[]> {
  const cps = Array.from(text);
  const at = (i: number, j: number) => cps.slice(i, j).join('');
  for (let a = 1; a < cps.length; a++) {
    yield [at(0, a), at(a, cps.length)];
    if (!three) continue;
    for (let b = a + 1; b < cps.length; b++) yield [at(0, a), at(a, b), at(b, cps.length)];
  }
}
