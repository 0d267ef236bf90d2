/**
 * What the Harmony renderer takes: OpenAI-chat-shaped messages and function tools, as the chat
 * endpoint receives them (request-pipeline.md §3.1), plus the system-message settings Harmony
 * has and chat templates do not.
 */

export interface HarmonyContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export type HarmonyContent = string | readonly HarmonyContentPart[] | null | undefined;

export interface HarmonyToolCall {
  id?: string;
  type?: string;
  function: {
    name: string;
    /** JSON text as the OpenAI wire sends it; an object is accepted and written as compact JSON. */
    arguments?: string | Record<string, unknown> | null;
  };
}

export interface HarmonyChatMessage {
  role: string;
  content?: HarmonyContent;
  /** Analysis (chain-of-thought) text of an assistant turn. */
  reasoning_content?: string | null;
  /** vLLM's newer name for the same field; used when `reasoning_content` is absent. */
  reasoning?: string | null;
  tool_calls?: readonly HarmonyToolCall[] | null;
  /** Tool messages: the id of the call they answer. */
  tool_call_id?: string;
  /** Tool messages: the function name, used when no earlier call has `tool_call_id`. */
  name?: string;
}

export interface HarmonyFunctionTool {
  type?: string;
  function: {
    name: string;
    description?: string | null;
    /** JSON Schema of the arguments; absent or null means the function takes none. */
    parameters?: unknown;
  };
}

export type HarmonyReasoningEffort = 'low' | 'medium' | 'high';

/**
 * Which earlier analysis messages the prompt keeps.
 * - `before-last-final` (default): drop every analysis message that precedes the conversation's
 *   last assistant `final` message; keep the ones after it (an ongoing tool-calling turn). This is
 *   the rule of the format guide ("Handling reasoning output in subsequent sampling") and of the
 *   official jinja template, as vLLM implements it (`auto_drop_analysis_messages`).
 * - `reference`: openai/harmony's own `auto_drop_analysis` (render_conversation_into): only when
 *   the last assistant message is `final`, drop analysis before the *first* final message, so
 *   analysis between two finals survives (`test_keep_analysis_between_finals`).
 * - `none`: keep all analysis (`auto_drop_analysis: false`, `test_preserve_cot`).
 */
export type HarmonyCotDrop = 'before-last-final' | 'reference' | 'none';

/**
 * Where a past assistant tool call puts its recipient.
 * - `channel` (default): `<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json`,
 *   the format guide's form ("Receiving tool calls", "Handling tool calls"), which is also how the
 *   model itself writes the header, so an echoed turn re-tokenizes like the generated one.
 * - `role`: `<|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json`, what the
 *   reference renderer writes for a message with a recipient (it always renders the recipient
 *   right after the role; `test_does_not_drop_if_ongoing_analysis.txt`) and where the official
 *   jinja template puts it too.
 */
export type HarmonyRecipientPlacement = 'channel' | 'role';

export interface HarmonyRenderOptions {
  messages: readonly HarmonyChatMessage[];
  /** Function tools (after tool_choice filtering). Non-function entries are ignored. */
  tools?: readonly HarmonyFunctionTool[] | null;
  /** Default `medium` (reference `SystemContent::default`). */
  reasoningEffort?: HarmonyReasoningEffort;
  /** `YYYY-MM-DD`. Undefined → today (local time, as SMG does); null → no `Current date:` line. */
  currentDate?: string | null;
  /** Default `2024-06` (reference `SystemContent::default`); null → no line. */
  knowledgeCutoff?: string | null;
  /** Default "You are ChatGPT, a large language model trained by OpenAI."; null → no line. */
  modelIdentity?: string | null;
  cotDrop?: HarmonyCotDrop;
  recipientPlacement?: HarmonyRecipientPlacement;
  /**
   * SMG and vLLM drop `commentary` from the valid-channels line when the request has no tools
   * (`build_system_message` / `get_system_message(with_custom_tools=False)`). The reference
   * renderer's default and the official template always list all three. Default false.
   */
  omitCommentaryWithoutTools?: boolean;
}
