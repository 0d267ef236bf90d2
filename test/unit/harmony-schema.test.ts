import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaToTypeScript } from '../../src/pipeline/harmony/schema-typescript.js';
import { functionsToolsSection, rustLines } from '../../src/pipeline/harmony/tools-section.js';
import type { HarmonyFunctionTool } from '../../src/pipeline/harmony/types.js';

interface CorpusCase {
  tools: Array<HarmonyFunctionTool['function']>;
  expected: string;
}
const corpus = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'harmony', 'schema-corpus.json'), 'utf8')) as {
  source: string;
  cases: CorpusCase[];
};

describe('JSON Schema → Harmony TypeScript notation', () => {
  it('matches the reference renderer on every case of the recorded corpus', () => {
    expect(corpus.source).toContain('openai/harmony');
    expect(corpus.cases.length).toBeGreaterThan(100);
    const mismatches = corpus.cases.filter((c) => functionsToolsSection(c.tools.map((f) => ({ type: 'function', function: f }))) !== c.expected);
    expect(mismatches.map((c) => JSON.stringify(c.tools))).toEqual([]);
  });

  it('writes unions, arrays and nullables the way the reference does', () => {
    expect(schemaToTypeScript({ type: ['integer', 'string'] })).toBe('number | string');
    expect(schemaToTypeScript({ type: 'array' })).toBe('Array<any>');
    expect(schemaToTypeScript({ type: 'array', items: { type: 'integer' } })).toBe('number[]');
    expect(schemaToTypeScript({ anyOf: [{ type: 'string' }] })).toBe('any');
    expect(schemaToTypeScript({ type: 'integer', enum: [1, 2] })).toBe('number');
    expect(schemaToTypeScript({ oneOf: [{ type: 'string', nullable: true }, { type: 'number', default: 1.5 }] })).toBe(
      '\n | string | null\n | number // default: 1.5',
    );
    expect(schemaToTypeScript({ type: 'object', properties: { a: { type: 'string', enum: ['x'], default: 'x' } } })).toBe(
      '{\na?: "x", // default: x\n}',
    );
  });

  it('splits descriptions like Rust str::lines', () => {
    expect(rustLines('')).toEqual([]);
    expect(rustLines('a\r\nb\n')).toEqual(['a', 'b']);
    expect(rustLines('a\n\nb')).toEqual(['a', '', 'b']);
  });
});
