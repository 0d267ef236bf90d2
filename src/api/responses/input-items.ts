/**
 * Responses `input` → chat messages (request-pipeline §3.4): `instructions` becomes the system
 * message, a string input one user message, and input items become template messages — message
 * items with their text parts, `function_call` items as assistant tool calls (consecutive calls
 * share one assistant turn, as a model emits parallel calls), `function_call_output` items as tool
 * messages, `reasoning` items as the next assistant turn's `reasoning_content`. A call of a
 * namespace member names its tool by `{name, namespace}` and a `custom_tool_call` carries free
 * text: both become the flattened function call the model made (tools.ts). Item types this
 * gateway cannot serve are refused by name, never dropped.
 */
import { PipelineError, invalid } from '../../pipeline/errors.js';
import type { ChatMessage } from '../../pipeline/request.js';
import { ToolOriginMap } from './tools.js';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const ROLES = new Set(['user', 'assistant', 'system', 'developer']);
const TEXT_PARTS = new Set(['input_text', 'output_text', 'text']);
const MEDIA_PARTS = new Set(['input_image', 'input_file', 'input_audio', 'image_url', 'file']);

export function inputMessages(input: unknown, instructions: string | undefined, origins: ToolOriginMap = new ToolOriginMap()): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (instructions) out.push({ role: 'system', content: instructions });
  if (typeof input === 'string') {
    out.push({ role: 'user', content: input });
  } else if (Array.isArray(input)) {
    appendItems(out, input, origins);
  } else if (input !== undefined && input !== null) {
    throw invalid('input: must be a string or an array of input items', 'input');
  }
  if (!out.some((m) => m.role !== 'system' && m.role !== 'developer')) {
    throw invalid('Request must contain at least one message', 'input');
  }
  return out;
}

function appendItems(out: ChatMessage[], items: unknown[], origins: ToolOriginMap): void {
  let reasoning: string | null = null;
  // The assistant turn that consecutive function_call items join.
  let callTurn: ChatMessage | null = null;
  const assistant = (msg: ChatMessage) => {
    if (reasoning !== null) msg.reasoning_content = reasoning;
    reasoning = null;
    out.push(msg);
    return msg;
  };
  items.forEach((item, i) => {
    if (!isObj(item)) throw invalid(`input[${i}]: must be an object`, `input[${i}]`);
    const type = item.type ?? (typeof item.role === 'string' ? 'message' : undefined);
    if (type !== 'function_call' && type !== 'custom_tool_call') callTurn = null;
    switch (type) {
      case 'message': {
        const role = item.role;
        if (typeof role !== 'string' || !ROLES.has(role)) {
          throw invalid(`input[${i}].role: must be one of user, assistant, system, developer`, `input[${i}].role`);
        }
        const content = messageText(item.content, i);
        if (role === 'assistant') assistant({ role, content });
        else out.push({ role, content });
        break;
      }
      case 'function_call': {
        const { call_id: callId, name, arguments: args } = item;
        if (typeof callId !== 'string' || typeof name !== 'string' || typeof args !== 'string') {
          throw invalid(`input[${i}]: a function_call item needs string 'call_id', 'name' and 'arguments'`, `input[${i}]`);
        }
        const call = { id: callId, type: 'function', function: { name: origins.flatName(name, item.namespace), arguments: args } };
        if (callTurn) (callTurn.tool_calls as unknown[]).push(call);
        else callTurn = assistant({ role: 'assistant', content: null, tool_calls: [call] });
        if (item.output !== undefined && item.output !== null) {
          out.push({ role: 'tool', tool_call_id: callId, content: outputText(item.output, i) });
          callTurn = null;
        }
        break;
      }
      case 'custom_tool_call': {
        const { call_id: callId, name, input } = item;
        if (typeof callId !== 'string' || typeof name !== 'string' || typeof input !== 'string') {
          throw invalid(`input[${i}]: a custom_tool_call item needs string 'call_id', 'name' and 'input'`, `input[${i}]`);
        }
        // The model made it as a function call with one `input` argument (tools.ts).
        const call = { id: callId, type: 'function', function: { name: origins.flatName(name, item.namespace), arguments: JSON.stringify({ input }) } };
        if (callTurn) (callTurn.tool_calls as unknown[]).push(call);
        else callTurn = assistant({ role: 'assistant', content: null, tool_calls: [call] });
        break;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        if (typeof item.call_id !== 'string') throw invalid(`input[${i}].call_id: must be a string`, `input[${i}].call_id`);
        out.push({ role: 'tool', tool_call_id: item.call_id, content: outputText(item.output, i) });
        break;
      }
      case 'reasoning':
        reasoning = (reasoning ?? '') + reasoningText(item);
        break;
      default:
        throw new PipelineError(
          400,
          'unsupported_input_item',
          `Unsupported input item type${typeof type === 'string' ? `: '${type}'` : ''}`,
          true,
          `input[${i}].type`,
        );
    }
  });
  // A trailing reasoning item still belongs to the conversation.
  if (reasoning !== null) out.push({ role: 'assistant', content: '', reasoning_content: reasoning });
}

/** A message item's text: a string, or its text/refusal parts joined by newlines (as chat flattens parts). */
function messageText(content: unknown, i: number): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalid(`input[${i}].content: must be a string or an array of content parts`, `input[${i}].content`);
  const texts: string[] = [];
  content.forEach((part, j) => {
    const where = `input[${i}].content[${j}]`;
    if (!isObj(part) || typeof part.type !== 'string') throw invalid(`${where}: must be a content part object`, where);
    if (TEXT_PARTS.has(part.type)) {
      if (typeof part.text !== 'string') throw invalid(`${where}.text: must be a string`, `${where}.text`);
      texts.push(part.text);
    } else if (part.type === 'refusal') {
      if (typeof part.refusal !== 'string') throw invalid(`${where}.refusal: must be a string`, `${where}.refusal`);
      texts.push(part.refusal);
    } else if (MEDIA_PARTS.has(part.type)) {
      throw new PipelineError(400, 'multimodal_not_supported', `${where}: '${part.type}' parts are not supported: this gateway serves text only`, true, where);
    } else throw invalid(`${where}: unsupported content part type '${part.type}'`, where);
  });
  return texts.join('\n');
}

function outputText(output: unknown, i: number): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return messageText(output, i);
  throw invalid(`input[${i}].output: must be a string or an array of content parts`, `input[${i}].output`);
}

function reasoningText(item: Json): string {
  const parts = Array.isArray(item.content) && item.content.length > 0 ? item.content : Array.isArray(item.summary) ? item.summary : [];
  return parts
    .map((p) => (isObj(p) && typeof p.text === 'string' ? p.text : ''))
    .join('');
}
