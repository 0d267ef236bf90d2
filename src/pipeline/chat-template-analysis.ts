/**
 * Facts read from a parsed template's syntax tree once, at compile time (request-pipeline.md
 * §4.4, §4.5): whether it wants message content as a list of parts or as a string, and whether its
 * generation prompt already opens a `<think>` block.
 *
 * The tree is walked generically (every object with a string `type`) because @huggingface/jinja
 * does not export its AST classes from the package entry point.
 */

interface Node {
  type: string;
  [key: string]: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

function* children(node: Node): Generator<Node> {
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type') continue;
    if (isNode(value)) yield value;
    else if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) yield item;
    } else if (value instanceof Map) {
      // ObjectLiteral keeps its entries as Map<Expression, Expression>.
      for (const [k, v] of value) {
        if (isNode(k)) yield k;
        if (isNode(v)) yield v;
      }
    }
  }
}

function* walk(node: Node): Generator<Node> {
  yield node;
  for (const child of children(node)) yield* walk(child);
}

const identifierIs = (node: unknown, name: string): boolean =>
  isNode(node) && node.type === 'Identifier' && node.value === name;

function mentions(node: Node, name: string): boolean {
  for (const n of walk(node)) if (identifierIs(n, name)) return true;
  return false;
}

export type ContentFormat = 'string' | 'openai';

/**
 * OpenAI (list) format when the template iterates content, indexes it by number, takes its length,
 * or defines a macro with both an `is` test and a loop (the usual "render parts" helper); else string.
 */
export function detectContentFormat(program: unknown): ContentFormat {
  if (!isNode(program)) return 'string';
  const messageVars = new Set<string>();
  for (const n of walk(program)) {
    if (n.type === 'For' && isNode(n.iterable) && mentions(n.iterable, 'messages') && isNode(n.loopvar)) {
      if (n.loopvar.type === 'Identifier') messageVars.add(n.loopvar.value as string);
    }
  }
  const isContent = (e: unknown): boolean => {
    if (identifierIs(e, 'content')) return true;
    if (!isNode(e) || e.type !== 'MemberExpression') return false;
    const prop = e.property as Node;
    const namesContent = e.computed
      ? prop.type === 'StringLiteral' && prop.value === 'content'
      : identifierIs(prop, 'content');
    const object = e.object as Node;
    return namesContent && object.type === 'Identifier' && messageVars.has(object.value as string);
  };

  for (const n of walk(program)) {
    if (n.type === 'For' && isContent(n.iterable)) return 'openai';
    if (n.type === 'MemberExpression' && n.computed && (n.property as Node).type === 'IntegerLiteral' && isContent(n.object)) {
      return 'openai';
    }
    if (n.type === 'FilterExpression' && identifierIs(n.filter, 'length') && isContent(n.operand)) return 'openai';
    if (n.type === 'Macro') {
      let hasTest = false;
      let hasFor = false;
      for (const m of walk(n)) {
        if (m.type === 'TestExpression') hasTest = true;
        if (m.type === 'For') hasFor = true;
      }
      if (hasTest && hasFor) return 'openai';
    }
  }
  return 'string';
}

/** Text that leaves a think block open: contains `<think>` with no `</think>` after the last one. */
function opensThink(text: string): boolean {
  const at = text.lastIndexOf('<think>');
  return at >= 0 && !text.includes('</think>', at);
}

function emitsOpenThink(statements: unknown): boolean {
  if (!Array.isArray(statements)) return false;
  for (const s of statements) {
    if (!isNode(s)) continue;
    // Raw text and `{{ '…' }}` both parse to a statement-level StringLiteral.
    if (s.type === 'StringLiteral' && opensThink(s.value as string)) return true;
    if (s.type === 'If' && (emitsOpenThink(s.body) || emitsOpenThink(s.alternate))) return true;
  }
  return false;
}

/**
 * True when a branch taken on `add_generation_prompt` emits an opening `<think>` (DeepSeek-R1,
 * Qwen3-Thinking): the model's output then starts inside the reasoning block. Qwen3's
 * `<think>\n\n</think>` (thinking switched off) closes the block, so it does not count.
 */
export function detectThinkInPrefill(program: unknown): boolean {
  if (!isNode(program)) return false;
  for (const n of walk(program)) {
    if (n.type === 'If' && isNode(n.test) && mentions(n.test, 'add_generation_prompt') && emitsOpenThink(n.body)) {
      return true;
    }
  }
  return false;
}
