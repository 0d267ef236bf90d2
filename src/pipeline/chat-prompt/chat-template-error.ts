/**
 * Anything that stops a chat template from rendering: a missing template, a template syntax
 * error, a runtime failure (including the template's own raise_exception), or messages the
 * template cannot take. Routes map it to 400 `process_messages_failed` (request-pipeline.md §3.1.1).
 */
export class ChatTemplateError extends Error {
  override name = 'ChatTemplateError';
}
