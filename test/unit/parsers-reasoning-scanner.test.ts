/**
 * The marker scanner on its own (marker-stream.ts), with marker sets no shipped parser uses:
 * markers nested in others, shared prefixes, and a leading-only marker. A toy machine writes each
 * marker it is handed as `[marker]`, so the tokenization itself is compared across splits.
 */
import { describe, expect, it } from 'vitest';
import { emit, MarkerSet, MarkerStreamParser, parseWhole } from '../../src/pipeline/parsers/reasoning/marker-stream.js';
import { foldItems, type ParsedItem } from '../../src/pipeline/parsers/types.js';
import { allSplits } from '../support/splits.js';

class Tokens extends MarkerStreamParser {
  constructor(markers: readonly string[], leading: string | null = null) {
    super(new MarkerSet(markers), leading);
  }
  protected onText(text: string, out: ParsedItem[]): void {
    emit(out, 'text', text);
  }
  protected onMarker(marker: string, out: ParsedItem[]): void {
    emit(out, 'reasoning', `[${marker}]`);
    emit(out, 'text', `[${marker}]`);
  }
}

function whole(markers: readonly string[], text: string, leading: string | null = null): string {
  return foldItems(parseWhole(new Tokens(markers, leading), text)).text;
}

function mismatch(markers: readonly string[], text: string, leading: string | null = null): string | null {
  const want = whole(markers, text, leading);
  for (const parts of allSplits(text)) {
    const p = new Tokens(markers, leading);
    const items = parts.flatMap((d) => p.push(d)).concat(p.finish());
    const got = foldItems(items).text;
    if (got !== want) return `${JSON.stringify(parts)}: ${got} ≠ ${want}`;
  }
  return null;
}

describe('marker scanner', () => {
  it('takes the earliest marker, the longest on a tie', () => {
    expect(whole(['ab', 'abc', 'b'], 'xabcab b')).toBe('x[abc][ab] [b]');
  });

  it('a marker inside a longer one waits until the longer one is ruled out', () => {
    const markers = ['<a>', 'x<a>y'];
    expect(whole(markers, 'x<a>y x<a>z <a>')).toBe('[x<a>y] x[<a>]z [<a>]');
    for (const text of ['x<a>y', 'x<a>z<a>', 'xx<a>yx<a', '<a>x<a>']) expect(mismatch(markers, text)).toBeNull();
  });

  it('markers sharing a prefix', () => {
    for (const text of ['<|a|><|b|>', '<|a<|b|>|>', '<|<|a|']) expect(mismatch(['<|a|>', '<|b|>', '<|ab|>'], text)).toBeNull();
  });

  it('a leading marker counts only at the very start', () => {
    expect(whole(['</t>'], '<t>x</t>', '<t>')).toBe('[<t>]x[</t>]');
    expect(whole(['</t>'], 'a<t>x</t>', '<t>')).toBe('a<t>x[</t>]');
    for (const text of ['<t>x</t>', '<t</t>', 'a<t>', '<t']) expect(mismatch(['</t>'], text, '<t>')).toBeNull();
  });

  it('MarkerSet.partialStart finds the longest tail that can still become a marker', () => {
    const set = new MarkerSet(['<think>', '</think>']);
    expect(set.partialStart('abc</thi', 0)).toBe(3);
    expect(set.partialStart('abc<', 0)).toBe(3);
    expect(set.partialStart('abc<x', 0)).toBe(-1);
    expect(set.partialStart('<think', 2)).toBe(-1);
    expect(set.touches('plain words')).toBe(false);
    expect(set.touches('a<b')).toBe(true);
  });
});
