/**
 * The non-streaming Messages response (request-pipeline §3.3): blocks in the order thinking →
 * text (only if not whitespace) → tool_use, then stop reason and usage.
 */
import type { Collected } from '../../pipeline/collect.js';
import { type MessagesMeta, messagesUsage, stopReason, toolUseId } from './message-shape.js';
import { thinkingSignature } from './thinking-signature.js';

/** Tool-call arguments as an object; anything else (unparsable, a bare value) is `{}`. */
function toolInput(args: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(args);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function messageJson({ choices, usage }: Collected, meta: MessagesMeta): Record<string, unknown> {
  const c = choices[0];
  const content: Record<string, unknown>[] = [];
  // A signature, so clients keep the block in the next turn's history (thinking-signature.ts).
  if (c.reasoning.length > 0) content.push({ type: 'thinking', thinking: c.reasoning, signature: thinkingSignature(c.reasoning) });
  if (c.text.trim().length > 0) content.push({ type: 'text', text: c.text });
  for (const t of c.toolCalls) if (t) content.push({ type: 'tool_use', id: toolUseId(t.id), name: t.name, input: toolInput(t.arguments) });
  const reason = stopReason(c.finish, c.matched, c.toolCalls.length > 0);
  const counts = usage.toJSON(false) as { prompt_tokens: number; completion_tokens: number };
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    content,
    model: meta.model,
    stop_reason: reason,
    stop_sequence: reason === 'stop_sequence' ? c.matched : null,
    usage: messagesUsage(counts.prompt_tokens, counts.completion_tokens),
  };
}
