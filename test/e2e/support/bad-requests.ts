/**
 * A corpus of malformed requests, generated from tables: per endpoint a valid base body and a
 * list of mutations (a field set to a wrong value, or removed), plus raw bodies and gateway-level
 * mistakes (wrong method, unknown route, wrong content type, too large). Each case says which
 * status it must get; the corpus test checks that every one is refused in its API's error shape
 * without a single request reaching the engine.
 *
 * Bodies carry the placeholder `$MODEL`, replaced by the served model when sent.
 */

import { CHAT, CHAT_BASE } from './bad-requests-chat.js';
import { COMPLETIONS, COMPLETION_BASE, GENERATE, GENERATE_BASE, MESSAGES, MESSAGES_BASE, RESPONSES, RESPONSES_BASE } from './bad-requests-apis.js';
import { type Mutation, apply, weather } from './bad-requests-kit.js';

export type Api = 'openai' | 'anthropic';

export interface BadRequest {
  name: string;
  method: string;
  path: string;
  /** A JSON value (sent as JSON), or a raw string body. */
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  status: number;
  /** The error code the envelope must carry, when the case pins one. */
  code?: string;
  /** The envelope's `param`, when the case pins one. */
  param?: string;
  /** Only for this engine (a value one runtime takes and the other cannot). */
  only?: 'vllm' | 'tokenspeed';
  api: Api;
}


// ---- assembly ----------------------------------------------------------------------------------

function expand(path: string, base: unknown, list: Mutation[], api: Api, prefix = ''): BadRequest[] {
  return list.map((c) => ({
    name: `${path} ${prefix}${c.name}`,
    method: 'POST',
    path,
    body: apply(base, c.patch),
    status: c.status ?? 400,
    code: c.code,
    param: c.param,
    only: c.only,
    api,
  }));
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function rawCases(path: string, api: Api): BadRequest[] {
  const raw = (name: string, body: string, headers: Record<string, string> = JSON_HEADERS, code?: string): BadRequest => ({
    name: `${path} ${name}`,
    method: 'POST',
    path,
    raw: body,
    headers,
    status: 400,
    code,
    api,
  });
  return [
    raw('truncated JSON', '{"model":', JSON_HEADERS, 'json_parse_error'),
    raw('not JSON', 'hello', JSON_HEADERS, 'json_parse_error'),
    raw('empty body', '', JSON_HEADERS, 'json_parse_error'),
    raw('JSON null', 'null'),
    raw('JSON array', '[]'),
    raw('JSON string', '"Hi"'),
    raw('JSON number', '42'),
    raw('no content type', '{"model":"$MODEL"}', {}, 'json_parse_error'),
    raw('text/plain', '{"model":"$MODEL"}', { 'content-type': 'text/plain' }, 'json_parse_error'),
  ];
}

const ENDPOINTS: Array<[string, Api]> = [
  ['/v1/chat/completions', 'openai'],
  ['/v1/completions', 'openai'],
  ['/v1/messages', 'anthropic'],
  ['/v1/responses', 'openai'],
  ['/generate', 'openai'],
];

function gatewayCases(): BadRequest[] {
  const out: BadRequest[] = [];
  for (const [path, api] of ENDPOINTS) {
    out.push(...rawCases(path, api));
    out.push({ name: `GET ${path}`, method: 'GET', path, status: 405, code: 'method_not_allowed', api });
  }
  out.push({ name: 'unknown /v1 route', method: 'POST', path: '/v1/chat/completion', body: CHAT_BASE, status: 404, code: 'not_found', api: 'openai' });
  out.push({ name: 'unknown route', method: 'POST', path: '/chat', body: CHAT_BASE, status: 404, code: 'not_found', api: 'openai' });
  out.push({
    name: 'count_tokens without messages',
    method: 'POST',
    path: '/v1/messages/count_tokens',
    body: { model: '$MODEL' },
    status: 400,
    api: 'anthropic',
  });
  return out;
}

/** Mutations that keep their meaning with `stream: true` (the refusal must still precede any SSE byte). */
function streamable(list: Mutation[]): Mutation[] {
  return list.filter((c) => c.status === undefined && !('stream' in c.patch) && !('stream_options' in c.patch) && !('best_of' in c.patch));
}

/** Every case but the over-the-limit bodies (oversizedRequests). */
export function badRequests(): BadRequest[] {
  return [
    ...expand('/v1/chat/completions', CHAT_BASE, CHAT, 'openai'),
    ...expand('/v1/chat/completions', { ...CHAT_BASE, stream: true }, streamable(CHAT).slice(0, 60), 'openai', 'streaming: '),
    ...expand('/v1/completions', COMPLETION_BASE, COMPLETIONS, 'openai'),
    ...expand('/v1/completions', { ...COMPLETION_BASE, stream: true }, streamable(COMPLETIONS).slice(0, 15), 'openai', 'streaming: '),
    ...expand('/v1/messages', MESSAGES_BASE, MESSAGES, 'anthropic'),
    ...expand('/v1/messages', { ...MESSAGES_BASE, stream: true }, streamable(MESSAGES).slice(0, 15), 'anthropic', 'streaming: '),
    ...expand('/v1/responses', RESPONSES_BASE, RESPONSES, 'openai'),
    ...expand('/v1/responses', { ...RESPONSES_BASE, stream: true }, streamable(RESPONSES).slice(0, 15), 'openai', 'streaming: '),
    ...expand('/generate', GENERATE_BASE, GENERATE, 'openai'),
    ...expand('/generate', { ...GENERATE_BASE, stream: true }, streamable(GENERATE).slice(0, 15), 'openai', 'streaming: '),
    ...gatewayCases(),
  ];
}

/** A body over the gateway's 32 MiB default limit, for each API shape. */
export function oversizedRequests(): BadRequest[] {
  const pad = 'x'.repeat(33 * 1024 * 1024);
  return [
    { name: 'chat body too large', method: 'POST', path: '/v1/chat/completions', body: { ...CHAT_BASE, pad }, status: 413, code: 'request_too_large', api: 'openai' },
    { name: 'messages body too large', method: 'POST', path: '/v1/messages', body: { ...MESSAGES_BASE, pad }, status: 413, api: 'anthropic' },
  ];
}

/** Requests that must succeed, one per endpoint, interleaved with the bad ones. */
export const GOOD_REQUESTS: Array<{ path: string; body: unknown }> = [
  { path: '/v1/chat/completions', body: CHAT_BASE },
  { path: '/v1/completions', body: COMPLETION_BASE },
  { path: '/v1/messages', body: MESSAGES_BASE },
  { path: '/v1/responses', body: RESPONSES_BASE },
  { path: '/generate', body: GENERATE_BASE },
  { path: '/v1/chat/completions', body: { ...CHAT_BASE, stream: true, tools: [weather], response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' } } } } },
  // What vLLM accepts (issue 26): empty user content, tool-call arguments as an object or absent.
  { path: '/v1/chat/completions', body: { ...CHAT_BASE, messages: [{ role: 'user', content: '' }] } },
  { path: '/v1/chat/completions', body: { ...CHAT_BASE, messages: [{ role: 'user', content: [] }] } },
  {
    path: '/v1/chat/completions',
    body: {
      ...CHAT_BASE,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [], tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: { a: 1.0 } } }, { id: 'd', type: 'function', function: { name: 'f' } }] },
        { role: 'tool', tool_call_id: 'c', content: 'r' },
        { role: 'user', content: 'Hi' },
      ],
    },
  },
];
