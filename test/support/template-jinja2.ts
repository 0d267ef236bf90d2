/**
 * The jinja2 differential (issue 26): every template under test/fixtures/templates/src rendered by
 * the gateway for every request in cases.json, compared with the render Python jinja2 gave in
 * transformers' environment (expected/<name>.json, from scripts/templates/render-jinja2.py).
 *
 * A request reaches ChatTemplate as it reaches it in the gateway: the raw JSON text parsed by the
 * gateway's body parser, `tools` as sent, `add_generation_prompt` (default true) and
 * `chat_template_kwargs` as the template kwargs. Time is frozen at the instant the Python side
 * uses, in UTC, so `strftime_now` renders the same.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonText } from '../../src/api/json-body.js';
import { ChatTemplate, type ChatTemplateOptions } from '../../src/pipeline/chat-prompt/chat-template.js';
import type { ChatMessageInput, ToolInput } from '../../src/pipeline/chat-prompt/chat-template-messages.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'templates');
export const DIFFERENCES_DOC = join(import.meta.dirname, '..', '..', 'docs', 'reference', 'template-differences.md');
/** FROZEN_NOW of render-jinja2.py, read as UTC. */
export const FROZEN_NOW = new Date('2026-03-05T14:07:09Z');

export interface Expected {
  readonly id: number;
  readonly text?: string;
  readonly error?: string;
}

export interface TemplateFixture {
  readonly name: string;
  readonly source: string;
  readonly specials: Record<string, string>;
  readonly results: readonly Expected[];
}

export interface Case {
  readonly id: number;
  readonly request: string;
}

export type Verdict = 'identical' | 'both-error' | 'differs' | 'gateway-error' | 'gateway-renders';

export interface CaseResult {
  readonly template: string;
  readonly id: number;
  readonly verdict: Verdict;
  readonly expected: Expected;
  readonly actual: { text?: string; error?: string };
}

export function loadCases(): Case[] {
  return JSON.parse(readFileSync(join(FIXTURES, 'cases.json'), 'utf8')) as Case[];
}

export function loadTemplates(): TemplateFixture[] {
  const out: TemplateFixture[] = [];
  for (const file of readdirSync(join(FIXTURES, 'src')).sort()) {
    if (!file.endsWith('.jinja')) continue;
    const name = file.slice(0, -'.jinja'.length);
    const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected', `${name}.json`), 'utf8')) as {
      specials: Record<string, string>;
      results: Expected[];
    };
    out.push({ name, source: readFileSync(join(FIXTURES, 'src', file), 'utf8'), specials: expected.specials, results: expected.results });
  }
  return out;
}

function tokens(specials: Record<string, string>) {
  return {
    bosToken: specials.bos_token ?? null,
    eosToken: specials.eos_token ?? null,
    unkToken: specials.unk_token ?? null,
    padToken: specials.pad_token ?? null,
  };
}

interface Request {
  messages: ChatMessageInput[];
  tools?: ToolInput[];
  add_generation_prompt?: boolean;
  chat_template_kwargs?: Record<string, unknown>;
}

function render(template: ChatTemplate, requestText: string): { text?: string; error?: string } {
  try {
    const req = parseJsonText(requestText) as Request;
    return {
      text: template.render({
        messages: req.messages,
        tools: req.tools ?? null,
        addGenerationPrompt: req.add_generation_prompt ?? true,
        kwargs: req.chat_template_kwargs ?? null,
      }),
    };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function verdict(expected: Expected, actual: { text?: string; error?: string }): Verdict {
  if (expected.error !== undefined) return actual.error !== undefined ? 'both-error' : 'gateway-renders';
  if (actual.error !== undefined) return 'gateway-error';
  return actual.text === expected.text ? 'identical' : 'differs';
}

/** Runs `fn` with Date frozen at FROZEN_NOW and the process in UTC. */
export function atFrozenNow<T>(fn: () => T): T {
  const RealDate = Date;
  const tz = process.env.TZ;
  process.env.TZ = 'UTC';
  const frozen = FROZEN_NOW.getTime();
  class FrozenDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(frozen);
      else super(...(args as [number]));
    }
    static override now(): number {
      return frozen;
    }
  }
  globalThis.Date = FrozenDate as DateConstructor;
  try {
    return fn();
  } finally {
    globalThis.Date = RealDate;
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  }
}

export function runTemplate(fixture: TemplateFixture, cases: readonly Case[], options: ChatTemplateOptions = {}): CaseResult[] {
  const byId = new Map(cases.map((c) => [c.id, c]));
  let template: ChatTemplate | null = null;
  let compileError: string | null = null;
  try {
    template = ChatTemplate.compile(fixture.source, tokens(fixture.specials), options);
  } catch (err) {
    compileError = (err as Error).message;
  }
  return atFrozenNow(() =>
    fixture.results.map((expected) => {
      const c = byId.get(expected.id);
      if (!c) throw new Error(`${fixture.name}: no case ${expected.id} in cases.json`);
      const actual = template ? render(template, c.request) : { error: compileError ?? 'no template' };
      return { template: fixture.name, id: expected.id, verdict: verdict(expected, actual), expected, actual };
    }),
  );
}

/** Listed differences: `| template | case | reason |` rows of docs/reference/template-differences.md. */
export function listedDifferences(): Map<string, string> {
  const out = new Map<string, string>();
  let text = '';
  try {
    text = readFileSync(DIFFERENCES_DOC, 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const m = /^\|\s*`([^`]+)`\s*\|\s*(\d+)\s*\|\s*(.+?)\s*\|\s*$/.exec(line);
    if (m) out.set(`${m[1]}#${m[2]}`, m[3]);
  }
  return out;
}

/** Cases jinja2 renders: the ones the match rate counts. */
export const counted = (r: CaseResult): boolean => r.expected.error === undefined;
