/**
 * Chat template rendering (request-pipeline.md §4) as vLLM renders it: transformers'
 * apply_chat_template under Python jinja2 (issue 26). @huggingface/jinja parses the template once
 * per model; template-compiler/ compiles the tree to a JS function with jinja2's semantics. A
 * template the compiler refuses renders with the library's interpreter (its own semantics; the
 * gateway warns when it loads one). Messages and tools are preprocessed as vLLM does
 * (chat-template-messages.ts), content format included (chat-template-analysis.ts).
 */
import { Template } from '@huggingface/jinja';
import { detectContentFormat, detectThinkInPrefill, type ContentFormat, type ContentFormatOption } from './chat-template-analysis.js';
import { ChatTemplateError } from './chat-template-error.js';
import {
  contentText,
  normalizeMessages,
  normalizeTools,
  type ChatMessageInput,
  type ToolInput,
} from './chat-template-messages.js';
import { detectThinkingToggle, type ThinkingToggle } from './chat-template-thinking.js';
import { compileTemplate, type RenderFunction } from './template-compiler/compile.js';
import { CompiledFallback } from './template-compiler/values.js';

export { ChatTemplateError };

const PREFIX = 'Failed to apply chat template: ';
const MISSING =
  'Cannot use chat template functions because tokenizer.chat_template is not set and no template argument was passed! ' +
  'For information about writing templates and setting the tokenizer.chat_template attribute, please see the ' +
  'documentation at https://huggingface.co/docs/transformers/main/en/chat_templating';

/**
 * Names the library declares itself; declaring them again from the context throws
 * `Variable already declared` (ecosystem.md §2.3), so kwargs may not override them.
 */
const BUILTINS = new Set(['raise_exception', 'strftime_now', 'range', 'true', 'false', 'none', 'True', 'False', 'None']);

export interface TemplateSpecialTokens {
  bosToken: string | null;
  eosToken: string | null;
  unkToken: string | null;
  padToken: string | null;
}

export interface RenderRequest {
  messages: readonly ChatMessageInput[];
  /** Tools as sent (after tool_choice filtering); null/undefined gives `tools` = None, as transformers does. */
  tools?: readonly ToolInput[] | null;
  /** SMG always passes true for chat; completions-style callers may pass false. */
  addGenerationPrompt?: boolean;
  /** Prefill: a final assistant message is continued instead of closed (§4.5 step 6). */
  continueFinalMessage?: boolean;
  /** Merged kwargs (see buildTemplateKwargs), spread over the base context. */
  kwargs?: Record<string, unknown> | null;
}

export interface ChatTemplateOptions {
  /** Render with the library's interpreter even when the template compiles (differential tests). */
  readonly interpretOnly?: boolean;
  /** `--chat-template-content-format`: `auto` (default) detects it from the template as vLLM does. */
  readonly contentFormat?: ContentFormatOption;
}

/**
 * The source as jinja2's lexer reads it: line endings normalized to '\n', so a template saved
 * with CRLF renders with '\n' (the parser already drops one trailing newline, as
 * keep_trailing_newline=False does).
 */
function jinjaSource(source: string): string {
  return source.includes('\r') ? source.replace(/\r\n?/g, '\n') : source;
}

export class ChatTemplate {
  readonly contentFormat: ContentFormat;
  readonly thinking: ThinkingToggle;
  /** The generation prompt opens a `<think>` block, so output starts inside reasoning. */
  readonly thinkInPrefill: boolean;
  private readonly template: Template;
  /** The compiled render function, or null when the template needs the interpreter. */
  private readonly compiled: RenderFunction | null;
  /** Why the template renders with the interpreter (null when it is compiled). */
  readonly interpretedBecause: string | null;
  /** The special-token variables every render gets; absent ones are left out. */
  private readonly specials: Record<string, string> = {};

  private constructor(
    readonly source: string,
    tokens: TemplateSpecialTokens,
    options: ChatTemplateOptions,
  ) {
    const { bosToken, eosToken, unkToken, padToken } = tokens;
    // Absent special tokens stay undefined (not none), as in SMG's minijinja context.
    const specials: Array<[string, string | null]> = [
      ['bos_token', bosToken],
      ['eos_token', eosToken],
      ['unk_token', unkToken],
      ['pad_token', padToken],
    ];
    for (const [name, value] of specials) if (value !== null) this.specials[name] = value;
    try {
      this.template = new Template(jinjaSource(source));
    } catch (err) {
      throw new ChatTemplateError(PREFIX + (err as Error).message);
    }
    const outcome = options.interpretOnly ? { render: null, reason: 'interpretOnly' } : compileTemplate(this.template.parsed);
    this.compiled = outcome.render;
    this.interpretedBecause = outcome.render ? null : outcome.reason;
    const format = options.contentFormat ?? 'auto';
    this.contentFormat = format === 'auto' ? detectContentFormat(this.template.parsed) : format;
    this.thinkInPrefill = detectThinkInPrefill(this.template.parsed);
    this.thinking = detectThinkingToggle(source);
  }

  /** Throws ChatTemplateError when there is no template or it does not parse. */
  static compile(source: string | null, tokens: TemplateSpecialTokens, options: ChatTemplateOptions = {}): ChatTemplate {
    if (source === null) throw new ChatTemplateError(PREFIX + MISSING);
    return new ChatTemplate(source, tokens, options);
  }

  render(req: RenderRequest): string {
    let messages = req.messages;
    let prefill = '';
    const last = messages.at(-1);
    if (req.continueFinalMessage && last?.role === 'assistant') {
      messages = messages.slice(0, -1);
      prefill = contentText(last.content);
    }

    // transformers' render_jinja_template: messages, tools and documents (None when absent),
    // add_generation_prompt, then the special tokens and the template kwargs.
    const context: Record<string, unknown> = {
      messages: normalizeMessages(messages, this.contentFormat),
      tools: req.tools ? normalizeTools(req.tools) : null,
      documents: null,
      add_generation_prompt: req.addGenerationPrompt ?? true,
    };
    Object.assign(context, this.specials);
    for (const [key, value] of Object.entries(req.kwargs ?? {})) {
      if (value !== undefined && !BUILTINS.has(key)) context[key] = value;
    }

    let rendered: string;
    try {
      rendered = this.renderContext(context);
    } catch (err) {
      throw new ChatTemplateError(PREFIX + (err as Error).message);
    }
    return rendered + prefill;
  }

  private renderContext(context: Record<string, unknown>): string {
    if (this.compiled === null) return this.template.render(context);
    try {
      return this.compiled(context);
    } catch (err) {
      // A value the compiled code does not mirror exactly: this one render goes to the interpreter.
      if (err instanceof CompiledFallback) return this.template.render(context);
      throw err;
    }
  }
}

const compiled = new WeakMap<object, ChatTemplate>();

/** The compiled template of a tokenizer, parsed on first use and then reused for every request. */
export function chatTemplateFor(
  tokenizer: TemplateSpecialTokens & { readonly chatTemplate: string | null },
): ChatTemplate {
  let template = compiled.get(tokenizer);
  if (!template) {
    template = ChatTemplate.compile(tokenizer.chatTemplate, tokenizer);
    compiled.set(tokenizer, template);
  }
  return template;
}
