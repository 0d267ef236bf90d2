/**
 * The thinking switch of a chat template and the kwargs map spread over the render context
 * (request-pipeline.md §4.3, §4.4). Detection is textual, exactly as SMG does it, so the same
 * templates get the same key and default.
 */

export interface ThinkingToggle {
  /** Template variable that switches thinking, or null when the template has no switch. */
  key: 'enable_thinking' | 'thinking' | null;
  /** What the template does when the variable is not passed. */
  defaultOn: boolean;
}

export function detectThinkingToggle(source: string): ThinkingToggle {
  let key: ThinkingToggle['key'] = null;
  if (source.includes('enable_thinking')) key = 'enable_thinking';
  else if (['if thinking ', 'thinking is ', 'thinking ==', 'set thinking '].some((s) => source.includes(s))) {
    key = 'thinking';
  }
  if (key === null) return { key: null, defaultOn: false };
  const offMarkers = ['set thinking = false', 'set thinking=false', 'set enable_thinking = false', 'set enable_thinking=false'];
  return { key, defaultOn: !offMarkers.some((s) => source.includes(s)) };
}

export interface TemplateKwargInputs {
  reasoningEffort?: string | null;
  /** The request's tool_choice as sent (`"auto"`, `"none"`, `"required"` or the object form). */
  toolChoice?: unknown;
  /** The request's response_format as sent. */
  responseFormat?: unknown;
  chatTemplateKwargs?: Record<string, unknown> | null;
  /** An explicit on/off from the protocol (Anthropic `thinking`); below explicit kwargs. */
  thinking?: boolean | null;
}

/**
 * Explicit boolean `chat_template_kwargs[key]` wins; else the protocol's explicit switch; else
 * reasoning_effort "none"/"minimal" means off; else no preference (the template default applies).
 */
export function thinkingPreference(inputs: TemplateKwargInputs, toggle: ThinkingToggle): boolean | null {
  if (toggle.key === null) return null;
  const explicit = inputs.chatTemplateKwargs?.[toggle.key];
  if (typeof explicit === 'boolean') return explicit;
  if (typeof inputs.thinking === 'boolean') return inputs.thinking;
  if (inputs.reasoningEffort === 'none' || inputs.reasoningEffort === 'minimal') return false;
  return null;
}

/** Whether the model's output starts in reasoning mode (the reasoning parser's initial state). */
export function reasoningStarted(toggle: ThinkingToggle, preference: boolean | null): boolean {
  if (toggle.key === null) return false;
  return toggle.defaultOn ? preference !== false : preference === true;
}

/**
 * Merged kwargs, later wins: reasoning_effort → tool_choice → response_format → chat_template_kwargs;
 * then a reasoning_effort-derived preference under the toggle key unless the map already has it.
 */
export function buildTemplateKwargs(inputs: TemplateKwargInputs, toggle: ThinkingToggle): Record<string, unknown> {
  const kwargs: Record<string, unknown> = {};
  if (typeof inputs.reasoningEffort === 'string') kwargs.reasoning_effort = inputs.reasoningEffort;
  if (inputs.toolChoice !== undefined && inputs.toolChoice !== null) kwargs.tool_choice = inputs.toolChoice;
  if (inputs.responseFormat !== undefined && inputs.responseFormat !== null) kwargs.response_format = inputs.responseFormat;
  Object.assign(kwargs, inputs.chatTemplateKwargs ?? {});
  const preference = thinkingPreference(inputs, toggle);
  if (toggle.key !== null && preference !== null && !(toggle.key in kwargs)) kwargs[toggle.key] = preference;
  return kwargs;
}
