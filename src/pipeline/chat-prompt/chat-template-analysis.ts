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
/** `--chat-template-content-format`: vLLM's choices; `auto` detects from the template. */
export type ContentFormatOption = 'auto' | ContentFormat;

/** vLLM asserts a plain name where its walk meets a loop or assignment target; so do we. */
class NotAName extends Error {}

function targetName(node: unknown): string {
  if (isNode(node) && node.type === 'Identifier') return node.value as string;
  throw new NotAName();
}

/** jinja2's For.iter: `for x in xs if cond` keeps the test apart from `xs`. */
function loopIterable(node: Node): unknown {
  const it = node.iterable;
  return isNode(it) && it.type === 'SelectExpression' ? it.lhs : it;
}

/** `_is_attr_access`: `v[key]` with a constant key or `v.key`. */
function isAttrAccess(node: unknown, varname: string, key: string): boolean {
  if (!isNode(node) || node.type !== 'MemberExpression') return false;
  const prop = node.property as Node;
  const keyMatches = node.computed ? prop.type === 'StringLiteral' && prop.value === key : identifierIs(prop, key);
  return keyMatches && identifierIs(node.object, varname);
}

/** `_is_var_or_elems_access`: through filters, tests and slices, to `var` or `var[key]`. */
function isVarOrElemsAccess(node: unknown, varname: string, key?: string): boolean {
  if (!isNode(node)) return false;
  if (node.type === 'FilterExpression' || node.type === 'TestExpression') return isVarOrElemsAccess(node.operand, varname, key);
  if (node.type === 'MemberExpression' && node.computed && isNode(node.property) && node.property.type === 'SliceExpression') {
    return isVarOrElemsAccess(node.object, varname, key);
  }
  return key !== undefined ? isAttrAccess(node, varname, key) : identifierIs(node, varname);
}

function nodesOf(program: Node, type: string): Node[] {
  const out: Node[] = [];
  for (const n of walk(program)) if (n.type === type) out.push(n);
  return out;
}

/** `messages` and every name assigned from it (or from one of those), breadth first. */
function messagesNames(program: Node): string[] {
  const names = ['messages'];
  const assigns = nodesOf(program, 'Set').filter((s) => s.value !== null && s.value !== undefined);
  for (let i = 0; i < names.length; i++) {
    for (const a of assigns) {
      if (!isVarOrElemsAccess(a.value, names[i])) continue;
      const lhs = targetName(a.assignee);
      if (!names.includes(lhs)) names.push(lhs);
    }
  }
  return names;
}

/**
 * vLLM's content-format detection (vllm/entrypoints/chat_utils.py `_detect_content_format`):
 * "openai" when a loop walks a message's `content` (`for part in message['content']`, through
 * filters, tests or slices), the message being a loop variable over `messages` or a name assigned
 * from it; otherwise "string", which is also the answer when the walk meets a loop or assignment
 * target that is not a plain name.
 */
export function detectContentFormat(program: unknown): ContentFormat {
  if (!isNode(program)) return 'string';
  try {
    const loops = nodesOf(program, 'For');
    const messageVars: string[] = [];
    const sources = messagesNames(program);
    for (const loop of loops) {
      if (sources.some((name) => isVarOrElemsAccess(loopIterable(loop), name))) messageVars.push(targetName(loop.loopvar));
    }
    for (const loop of loops) {
      if (messageVars.some((name) => isVarOrElemsAccess(loopIterable(loop), name, 'content'))) {
        targetName(loop.loopvar);
        return 'openai';
      }
    }
    return 'string';
  } catch (err) {
    if (err instanceof NotAName) return 'string';
    throw err;
  }
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
