/**
 * A corpus of malformed requests, generated from tables: per endpoint a valid base body and a
 * list of mutations (a field set to a wrong value, or removed), plus raw bodies and gateway-level
 * mistakes (wrong method, unknown route, wrong content type, too large). Each case says which
 * status it must get; the corpus test checks that every one is refused in its API's error shape
 * without a single request reaching the engine.
 *
 * Bodies carry the placeholder `$MODEL`, replaced by the served model when sent.
 */

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

/** Marks a field to delete. */
export const DROP = Symbol('drop');

type Patch = Record<string, unknown>;

interface Mutation {
  name: string;
  patch: Patch;
  status?: number;
  code?: string;
  param?: string;
  only?: 'vllm' | 'tokenspeed';
}

/** Sets `path` (dot-separated, numeric segments index arrays) on a deep copy of `base`. */
function apply(base: unknown, patch: Patch): unknown {
  const out = structuredClone(base) as Record<string, unknown>;
  for (const [path, value] of Object.entries(patch)) {
    const keys = path.split('.');
    let at: Record<string, unknown> = out;
    for (const k of keys.slice(0, -1)) {
      if (typeof at[k] !== 'object' || at[k] === null) at[k] = {};
      at = at[k] as Record<string, unknown>;
    }
    const last = keys[keys.length - 1];
    if (value === DROP) delete at[last];
    else at[last] = value;
  }
  return out;
}

const m = (name: string, patch: Patch, extra: Omit<Mutation, 'name' | 'patch'> = {}): Mutation => ({ name, patch, ...extra });

const LONG_TEXT = 'lorem ipsum dolor sit amet '.repeat(400);

const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

// ---- /v1/chat/completions ----------------------------------------------------------------

const CHAT_BASE = { model: '$MODEL', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 };

const CHAT: Mutation[] = [
  m('model missing', { model: DROP }),
  m('model empty', { model: '' }),
  m('model a number', { model: 5 }),
  m('model unknown', { model: 'no-such-model' }, { status: 404, code: 'model_not_found' }),
  m('messages missing', { messages: DROP }),
  m('messages empty', { messages: [] }),
  m('messages a string', { messages: 'Hi' }),
  m('messages an object', { messages: { role: 'user', content: 'Hi' } }),
  m('message null', { messages: [null] }),
  m('message a number', { messages: [5] }),
  m('message an array', { messages: [[]] }),
  m('role missing', { 'messages.0.role': DROP }),
  m('role bogus', { 'messages.0.role': 'bogus' }, { param: 'messages[0].role' }),
  m('role empty', { 'messages.0.role': '' }),
  m('role a number', { 'messages.0.role': 5 }),
  m('role null', { 'messages.0.role': null }),
  m('role upper case', { 'messages.0.role': 'USER' }),
  m('unknown role after a good one', { messages: [{ role: 'user', content: 'Hi' }, { role: 'robot', content: 'x' }] }),
  m('user content empty', { 'messages.0.content': '' }),
  m('user content null', { 'messages.0.content': null }),
  m('user content missing', { 'messages.0.content': DROP }),
  m('user content no parts', { 'messages.0.content': [] }),
  m('user content a number', { 'messages.0.content': 5 }),
  m('user content an object', { 'messages.0.content': { type: 'text', text: 'Hi' } }),
  m('content [null]', { 'messages.0.content': [null] }),
  m('content [5]', { 'messages.0.content': [5] }),
  m('content [string]', { 'messages.0.content': ['Hi'] }),
  m('part without type', { 'messages.0.content': [{ text: 'Hi' }] }),
  m('part type a number', { 'messages.0.content': [{ type: 5, text: 'Hi' }] }),
  m('text part without text', { 'messages.0.content': [{ type: 'text' }] }),
  m('text part text a number', { 'messages.0.content': [{ type: 'text', text: 5 }] }),
  m('unknown part type', { 'messages.0.content': [{ type: 'bogus', text: 'Hi' }] }),
  m('image_url part', { 'messages.0.content': [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }, { code: 'multimodal_not_supported', param: 'messages[0].content[0]' }),
  m('image_url after text', { 'messages.0.content': [{ type: 'text', text: 'Hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }, { code: 'multimodal_not_supported' }),
  m('input_audio part', { 'messages.0.content': [{ type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }] }, { code: 'multimodal_not_supported' }),
  m('video_url part', { 'messages.0.content': [{ type: 'video_url', video_url: { url: 'https://example.com/a.mp4' } }] }, { code: 'multimodal_not_supported' }),
  m('file part', { 'messages.0.content': [{ type: 'file', file: { file_id: 'f' } }] }, { code: 'multimodal_not_supported' }),
  m('refusal part in a user message', { 'messages.0.content': [{ type: 'refusal', refusal: 'no' }] }),
  m('system content null', { messages: [{ role: 'system', content: null }, { role: 'user', content: 'Hi' }] }),
  m('system content missing', { messages: [{ role: 'system' }, { role: 'user', content: 'Hi' }] }),
  m('system content a number', { messages: [{ role: 'system', content: 5 }, { role: 'user', content: 'Hi' }] }),
  m('system image part', { messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'x' } }] }, { role: 'user', content: 'Hi' }] }, { code: 'multimodal_not_supported' }),
  m('developer content an object', { messages: [{ role: 'developer', content: {} }, { role: 'user', content: 'Hi' }] }),
  m('assistant content a number', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 5 }] }),
  m('assistant unknown part', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'bogus' }] }] }),
  m('assistant refusal not a string', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'refusal', refusal: 5 }] }] }),
  m('tool message without tool_call_id', { messages: [{ role: 'user', content: 'Hi' }, { role: 'tool', content: '42' }] }, { param: 'messages[1].tool_call_id' }),
  m('tool message tool_call_id a number', { messages: [{ role: 'user', content: 'Hi' }, { role: 'tool', content: '42', tool_call_id: 7 }] }),
  m('tool message without content', { messages: [{ role: 'user', content: 'Hi' }, { role: 'tool', tool_call_id: 'c1' }] }),
  m('function message without name', { messages: [{ role: 'user', content: 'Hi' }, { role: 'function', content: '42' }] }),
  m('name a number', { 'messages.0.name': 5 }),
  m('name an object', { 'messages.0.name': {} }),
  m('name a boolean', { 'messages.0.name': true }),
  m('tool_calls on a user message', { 'messages.0.tool_calls': [] }),
  m('tool_calls a string', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: 'x' }] }),
  m('tool_calls entry a number', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [5] }] }),
  m('tool_calls entry empty', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{}] }] }),
  m('tool call without id', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }] }),
  m('tool call id a number', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 1, type: 'function', function: { name: 'f', arguments: '{}' } }] }] }),
  m('tool call type bogus', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'c', type: 'bogus', function: { name: 'f', arguments: '{}' } }] }] }),
  m('tool call without function', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'c', type: 'function' }] }] }),
  m('tool call function a string', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: 'f' }] }] }),
  m('tool call name a number', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 5, arguments: '{}' } }] }] }),
  m('tool call arguments an object', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: {} } }] }] }),
  m('tool call arguments missing', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f' } }] }] }),
  m('reasoning_content a number', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'a', reasoning_content: 5 }] }),
  m('tools a string', { tools: 'x' }),
  m('tools an object', { tools: weather }),
  m('tool a number', { tools: [5] }),
  m('tool null', { tools: [null] }),
  m('tool without function', { tools: [{ type: 'function' }] }),
  m('tool type bogus', { tools: [{ ...weather, type: 'bogus' }] }, { param: 'tools[0].type' }),
  m('tool function a string', { tools: [{ type: 'function', function: 'f' }] }),
  m('tool name missing', { tools: [{ type: 'function', function: { parameters: {} } }] }),
  m('tool name a number', { tools: [{ type: 'function', function: { name: 5 } }] }, { param: 'tools[0].function.name' }),
  m('tool name empty', { tools: [{ type: 'function', function: { name: '' } }] }),
  m('tool name with a space', { tools: [{ type: 'function', function: { name: 'get weather' } }] }),
  m('tool name with a dot', { tools: [{ type: 'function', function: { name: 'weather.get' } }] }),
  m('tool name too long', { tools: [{ type: 'function', function: { name: 'a'.repeat(65) } }] }),
  m('tool description a number', { tools: [{ type: 'function', function: { name: 'f', description: 5 } }] }),
  m('tool parameters a string', { tools: [{ type: 'function', function: { name: 'f', parameters: 'x' } }] }, { param: 'tools[0].function.parameters' }),
  m('tool parameters a number', { tools: [{ type: 'function', function: { name: 'f', parameters: 5 } }] }),
  m('tool parameters an array', { tools: [{ type: 'function', function: { name: 'f', parameters: [] } }] }),
  m('tool parameters bad type', { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'bogus' } } }] }),
  m('tool parameters properties a string', { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: 'x' } } }] }),
  m('tool parameters required a string', { tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', required: 'city' } } }] }),
  m('tool parameters dangling $ref', { tools: [{ type: 'function', function: { name: 'f', parameters: { $ref: '#/$defs/Nope' } } }] }),
  m('tool strict a string', { tools: [{ type: 'function', function: { name: 'f', strict: 'yes' } }] }),
  m('duplicate tool names', { tools: [weather, weather] }, { param: 'tools[1].function.name' }),
  m('legacy functions with a numeric name', { functions: [{ name: 5 }] }),
  m('tool_choice required without tools', { tool_choice: 'required' }),
  m('tool_choice bogus', { tools: [weather], tool_choice: 'bogus' }),
  m('tool_choice a number', { tools: [weather], tool_choice: 5 }),
  m('tool_choice names a missing function', { tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } }),
  m('tool_choice function without name', { tools: [weather], tool_choice: { type: 'function' } }),
  m('allowed_tools bad mode', { tools: [weather], tool_choice: { type: 'allowed_tools', mode: 'sometimes', tools: [] } }),
  m('response_format a string', { response_format: 'json' }),
  m('response_format type bogus', { response_format: { type: 'bogus' } }),
  m('json_schema format without json_schema', { response_format: { type: 'json_schema' } }),
  m('json_schema a string', { response_format: { type: 'json_schema', json_schema: 'x' } }),
  m('json_schema without name', { response_format: { type: 'json_schema', json_schema: { schema: { type: 'object' } } } }, { param: 'response_format.json_schema.name' }),
  m('json_schema name empty', { response_format: { type: 'json_schema', json_schema: { name: '', schema: { type: 'object' } } } }),
  m('json_schema name a number', { response_format: { type: 'json_schema', json_schema: { name: 5, schema: { type: 'object' } } } }),
  m('json_schema name with spaces', { response_format: { type: 'json_schema', json_schema: { name: 'my schema', schema: { type: 'object' } } } }),
  m('json_schema schema a string', { response_format: { type: 'json_schema', json_schema: { name: 's', schema: '{"type":"object"}' } } }, { param: 'response_format.json_schema.schema' }),
  m('json_schema schema a number', { response_format: { type: 'json_schema', json_schema: { name: 's', schema: 5 } } }),
  m('json_schema schema an array', { response_format: { type: 'json_schema', json_schema: { name: 's', schema: [] } } }),
  m('json_schema schema bad type', { response_format: { type: 'json_schema', json_schema: { name: 's', schema: { type: 'bogus' } } } }),
  m('json_schema strict a string', { response_format: { type: 'json_schema', json_schema: { name: 's', schema: {}, strict: 'yes' } } }),
  m('json_object with regex', { response_format: { type: 'json_object' }, regex: 'a+' }),
  m('json_object with ebnf', { response_format: { type: 'json_object' }, ebnf: 'root ::= "a"' }),
  m('regex with ebnf', { regex: 'a+', ebnf: 'root ::= "a"' }),
  m('json_schema text not JSON', { json_schema: '{bad' }),
  m('json_schema text an array', { json_schema: '[]' }),
  m('json_schema text bad schema', { json_schema: '{"type":"bogus"}' }),
  m('json_schema text a number', { json_schema: 5 }),
  m('parallel_tool_calls a string', { parallel_tool_calls: 'yes' }, { param: 'parallel_tool_calls' }),
  m('parallel_tool_calls a number', { parallel_tool_calls: 1 }),
  m('user a number', { user: 5 }, { param: 'user' }),
  m('user an object', { user: {} }),
  m('metadata a string', { metadata: 'x' }),
  m('logit_bias a string', { logit_bias: 'x' }),
  m('logit_bias key not a token id', { logit_bias: { abc: 1 } }),
  m('logit_bias value a string', { logit_bias: { '5': 'x' } }),
  m('logit_bias value above 100', { logit_bias: { '5': 101 } }, { param: 'logit_bias' }),
  m('logit_bias value below -100', { logit_bias: { '5': -101 } }),
  m('logit_bias value huge', { logit_bias: { '5': 1e9 } }),
  m('logit_bias token out of vocabulary', { logit_bias: { '999999999': 1 } }),
  m('temperature negative', { temperature: -1 }),
  m('temperature above 2', { temperature: 3 }),
  m('temperature a string', { temperature: 'hot' }),
  m('top_p 0', { top_p: 0 }),
  m('top_p above 1', { top_p: 1.5 }),
  m('top_k 0', { top_k: 0 }),
  m('top_k -2', { top_k: -2 }),
  m('top_k fractional', { top_k: 1.5 }),
  m('top_k 200 on TokenSpeed', { top_k: 200 }, { only: 'tokenspeed', code: 'invalid_request_parameters', param: 'sampling_params.top_k' }),
  m('min_p above 1', { min_p: 2 }),
  m('presence_penalty above 2', { presence_penalty: 3 }),
  m('frequency_penalty below -2', { frequency_penalty: -3 }),
  m('repetition_penalty 0', { repetition_penalty: 0 }),
  m('repetition_penalty above 2', { repetition_penalty: 3 }),
  m('n 0', { n: 0 }),
  m('n 11', { n: 11 }),
  m('n fractional', { n: 1.5 }),
  m('seed a string', { seed: 'x' }),
  m('seed fractional', { seed: 1.5 }),
  m('seed negative on TokenSpeed', { seed: -5 }, { only: 'tokenspeed', code: 'invalid_request_parameters', param: 'sampling_params.seed' }),
  m('max_tokens 0', { max_tokens: 0 }),
  m('max_tokens negative', { max_tokens: -1 }),
  m('max_tokens fractional', { max_tokens: 1.5 }),
  m('max_tokens a string', { max_tokens: '8' }),
  m('max_completion_tokens 0', { max_completion_tokens: 0 }),
  m('max_tokens beyond the context', { max_tokens: 100_000 }, { code: 'context_length_exceeded' }),
  m('prompt beyond the context', { 'messages.0.content': LONG_TEXT }, { code: 'context_length_exceeded' }),
  m('min_tokens negative', { min_tokens: -1 }),
  m('min_tokens above max_tokens', { min_tokens: 9 }),
  m('stop empty string', { stop: '' }),
  m('stop five sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }),
  m('stop a number', { stop: 5 }),
  m('stop entry a number', { stop: [5] }),
  m('stop_token_ids negative', { stop_token_ids: [-1] }),
  m('stop_token_ids strings', { stop_token_ids: ['x'] }),
  m('stop_token_ids a string', { stop_token_ids: 'x' }),
  m('logprobs a string', { logprobs: 'yes' }),
  m('top_logprobs 21', { logprobs: true, top_logprobs: 21 }),
  m('top_logprobs without logprobs', { top_logprobs: 2 }),
  m('stream a string', { stream: 'yes' }),
  m('stream_options without stream', { stream_options: { include_usage: true } }),
  m('stream_options a string', { stream: true, stream_options: 'x' }),
  m('ignore_eos a string', { ignore_eos: 'x' }),
  m('skip_special_tokens a number', { skip_special_tokens: 0 }),
  m('rid empty', { rid: '' }),
  m('rid a number', { rid: 5 }),
  m('reasoning_effort an object', { reasoning_effort: {} }),
  m('chat_template_kwargs a string', { chat_template_kwargs: 'x' }),
  m('return_audio true', { return_audio: true }, { code: 'audio_output_not_supported' }),
  m('modalities audio', { modalities: ['text', 'audio'] }, { code: 'unsupported_output_modality' }),
  m('modalities a string', { modalities: 'text' }),
  m('continue_final_message a string', { continue_final_message: 'x' }),
  m('separate_reasoning a string', { separate_reasoning: 'x' }),
];

/** Chat mutations that keep their meaning with `stream: true` (the refusal must still precede any SSE byte). */
const CHAT_STREAMED = CHAT.filter((c) => !('stream' in c.patch) && !('stream_options' in c.patch) && c.status === undefined).slice(0, 60);

// ---- /v1/completions ----------------------------------------------------------------------

const COMPLETION_BASE = { model: '$MODEL', prompt: 'Hi', max_tokens: 8 };

const COMPLETIONS: Mutation[] = [
  m('model missing', { model: DROP }),
  m('model unknown', { model: 'no-such-model' }, { status: 404, code: 'model_not_found' }),
  m('prompt missing', { prompt: DROP }),
  m('prompt a number', { prompt: 5 }),
  m('prompt an object', { prompt: { text: 'Hi' } }),
  m('prompt empty array', { prompt: [] }),
  m('prompt fractional token id', { prompt: [1.5] }),
  m('prompt negative token id', { prompt: [-1] }),
  m('prompt empty token list', { prompt: [[]] }),
  m('prompt mixed entries', { prompt: ['a', 5] }),
  m('prompt negative id in a batch', { prompt: [[1, -2]] }),
  m('prompt object entry', { prompt: [{}] }),
  m('prompt token out of vocabulary', { prompt: [999_999_999] }),
  m('prompt batch token out of vocabulary', { prompt: [[1, 2], [999_999_999]] }),
  m('prompt beyond the context', { prompt: LONG_TEXT }, { code: 'context_length_exceeded' }),
  m('max_tokens beyond the context', { max_tokens: 100_000 }, { code: 'context_length_exceeded' }),
  m('max_tokens 0', { max_tokens: 0 }),
  m('min_tokens above max_tokens', { min_tokens: 20 }),
  m('best_of below n', { best_of: 1, n: 2 }),
  m('best_of with stream', { best_of: 2, stream: true }),
  m('logprobs 6', { logprobs: 6 }),
  m('logprobs negative', { logprobs: -1 }),
  m('logprobs a string', { logprobs: 'x' }),
  m('echo a string', { echo: 'x' }),
  m('suffix a number', { suffix: 5 }),
  m('n 129', { n: 129 }),
  m('regex with json_schema', { regex: 'a', json_schema: '{}' }),
  m('json_schema text not JSON', { json_schema: '{' }),
  m('user a number', { user: 5 }),
  m('logit_bias value above 100', { logit_bias: { '5': 200 } }),
  m('temperature above 2', { temperature: 9 }),
  m('top_p 0', { top_p: 0 }),
  m('repetition_penalty 0', { repetition_penalty: 0 }),
  m('stop five sequences', { stop: ['a', 'b', 'c', 'd', 'e'] }),
  m('stream a number', { stream: 1 }),
  m('top_k 500 on TokenSpeed', { top_k: 500 }, { only: 'tokenspeed', code: 'invalid_request_parameters', param: 'sampling_params.top_k' }),
];

// ---- /v1/messages -------------------------------------------------------------------------

const MESSAGES_BASE = { model: '$MODEL', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] };
const TOOL = { name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

const MESSAGES: Mutation[] = [
  m('model missing', { model: DROP }),
  m('model unknown', { model: 'no-such-model' }, { status: 404 }),
  m('max_tokens missing', { max_tokens: DROP }),
  m('max_tokens 0', { max_tokens: 0 }),
  m('max_tokens a string', { max_tokens: 'x' }),
  m('max_tokens beyond the context', { max_tokens: 100_000 }),
  m('messages missing', { messages: DROP }),
  m('messages empty', { messages: [] }),
  m('message a string', { messages: ['Hi'] }),
  m('role bogus', { 'messages.0.role': 'bogus' }),
  m('role tool', { 'messages.0.role': 'tool' }),
  m('content missing', { 'messages.0.content': DROP }),
  m('content a number', { 'messages.0.content': 5 }),
  m('content empty string', { 'messages.0.content': '' }),
  m('content no blocks', { 'messages.0.content': [] }),
  m('block null', { 'messages.0.content': [null] }),
  m('block without type', { 'messages.0.content': [{ text: 'Hi' }] }),
  m('unknown block type', { 'messages.0.content': [{ type: 'bogus', text: 'Hi' }] }),
  m('text block text a number', { 'messages.0.content': [{ type: 'text', text: 5 }] }),
  m('image block', { 'messages.0.content': [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } }] }),
  m('document block', { 'messages.0.content': [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } }] }),
  m('tool_result without tool_use_id', { 'messages.0.content': [{ type: 'tool_result', content: 'x' }] }),
  m('tool_result with an image', { 'messages.0.content': [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: {} }] }] }),
  m('tool_use in a user message', { 'messages.0.content': [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }),
  m('tool_result in an assistant message', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't' }] }] }),
  m('tool_use id a number', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 1, name: 'f', input: {} }] }] }),
  m('tool_use name missing', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', input: {} }] }] }),
  m('tool_use input a string', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: 'x' }] }] }),
  m('thinking block text a number', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 5 }] }] }),
  m('system a number', { system: 5 }),
  m('system image block', { system: [{ type: 'image', source: {} }] }),
  m('system unknown block', { system: [{ type: 'bogus' }] }),
  m('tools a string', { tools: 'x' }),
  m('tool a number', { tools: [5] }),
  m('tool name missing', { tools: [{ input_schema: { type: 'object' } }] }),
  m('tool name with a space', { tools: [{ ...TOOL, name: 'get weather' }] }),
  m('tool input_schema missing', { tools: [{ name: 'f' }] }),
  m('tool input_schema a string', { tools: [{ name: 'f', input_schema: 'x' }] }),
  m('tool input_schema bad type', { tools: [{ name: 'f', input_schema: { type: 'bogus' } }] }),
  m('duplicate tool names', { tools: [TOOL, TOOL] }),
  m('tool description a number', { tools: [{ ...TOOL, description: 5 }] }),
  m('tool_choice a string', { tools: [TOOL], tool_choice: 'auto' }),
  m('tool_choice type bogus', { tools: [TOOL], tool_choice: { type: 'bogus' } }),
  m('tool_choice tool without name', { tools: [TOOL], tool_choice: { type: 'tool' } }),
  m('tool_choice names a missing tool', { tools: [TOOL], tool_choice: { type: 'tool', name: 'nope' } }),
  m('tool_choice any without tools', { tool_choice: { type: 'any' } }),
  m('mcp_toolset without mcp_servers', { tools: [{ type: 'mcp_toolset', mcp_server_name: 's' }] }),
  m('thinking a string', { thinking: 'on' }),
  m('thinking type bogus', { thinking: { type: 'bogus' } }),
  m('thinking budget fractional', { thinking: { type: 'enabled', budget_tokens: 1.5 } }),
  m('temperature above 1', { temperature: 1.5 }),
  m('temperature negative', { temperature: -1 }),
  m('top_p 0', { top_p: 0 }),
  m('top_k negative', { top_k: -1 }),
  m('top_k fractional', { top_k: 1.5 }),
  m('stop_sequences a string', { stop_sequences: 'x' }),
  m('stop_sequences empty entry', { stop_sequences: [''] }),
  m('stop_sequences a number entry', { stop_sequences: [5] }),
  m('stream a string', { stream: 'x' }),
  m('metadata a string', { metadata: 'x' }),
  m('rid empty', { rid: '' }),
  m('prompt beyond the context', { 'messages.0.content': LONG_TEXT }),
  m('top_k 300 on TokenSpeed', { top_k: 300 }, { only: 'tokenspeed' }),
];

// ---- /v1/responses -------------------------------------------------------------------------

const RESPONSES_BASE = { model: '$MODEL', input: 'Hi', max_output_tokens: 8 };
const FN = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

const RESPONSES: Mutation[] = [
  m('model missing', { model: DROP }),
  m('model unknown', { model: 'no-such-model' }, { status: 404, code: 'model_not_found' }),
  m('input missing', { input: DROP }),
  m('input a number', { input: 5 }),
  m('input empty', { input: [] }),
  m('input item a number', { input: [5] }),
  m('input item type bogus', { input: [{ type: 'bogus' }] }, { code: 'unsupported_input_item' }),
  m('input item computer_call', { input: [{ type: 'computer_call', call_id: 'c' }] }, { code: 'unsupported_input_item' }),
  m('message role bogus', { input: [{ type: 'message', role: 'bogus', content: 'Hi' }] }),
  m('message content a number', { input: [{ role: 'user', content: 5 }] }),
  m('message part a number', { input: [{ role: 'user', content: [5] }] }),
  m('message part input_image', { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }] }, { code: 'multimodal_not_supported' }),
  m('message part input_file', { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }, { code: 'multimodal_not_supported' }),
  m('message part bogus', { input: [{ role: 'user', content: [{ type: 'bogus' }] }] }),
  m('input_text text a number', { input: [{ role: 'user', content: [{ type: 'input_text', text: 5 }] }] }),
  m('only a system message', { input: [{ role: 'system', content: 'Be brief' }] }),
  m('function_call without call_id', { input: [{ role: 'user', content: 'Hi' }, { type: 'function_call', name: 'f', arguments: '{}' }] }),
  m('function_call arguments an object', { input: [{ role: 'user', content: 'Hi' }, { type: 'function_call', call_id: 'c', name: 'f', arguments: {} }] }),
  m('function_call_output call_id a number', { input: [{ role: 'user', content: 'Hi' }, { type: 'function_call_output', call_id: 5, output: 'x' }] }),
  m('function_call_output output a number', { input: [{ role: 'user', content: 'Hi' }, { type: 'function_call_output', call_id: 'c', output: 5 }] }),
  m('previous_response_id', { previous_response_id: 'resp_1' }, { code: 'unsupported_parameter' }),
  m('conversation', { conversation: 'conv_1' }, { code: 'unsupported_parameter' }),
  m('store true', { store: true }, { code: 'unsupported_parameter' }),
  m('background true', { background: true }, { code: 'unsupported_parameter' }),
  m('instructions a number', { instructions: 5 }),
  m('tools a string', { tools: 'x' }),
  m('hosted tool', { tools: [{ type: 'web_search' }] }),
  m('function tool without name', { tools: [{ type: 'function', parameters: {} }] }),
  m('function tool name with a space', { tools: [{ ...FN, name: 'get weather' }] }, { param: 'tools[0].name' }),
  m('function tool parameters a string', { tools: [{ ...FN, parameters: 'x' }] }, { param: 'tools[0].parameters' }),
  m('function tool parameters bad type', { tools: [{ ...FN, parameters: { type: 'bogus' } }] }),
  m('duplicate function tools', { tools: [FN, FN] }),
  m('tool_choice required without tools', { tool_choice: 'required' }),
  m('text a string', { text: 'x' }),
  m('text.format a string', { text: { format: 'json' } }),
  m('text.format type bogus', { text: { format: { type: 'bogus' } } }),
  m('json_schema format without name', { text: { format: { type: 'json_schema', schema: { type: 'object' } } } }, { param: 'text.format.name' }),
  m('json_schema format schema a string', { text: { format: { type: 'json_schema', name: 's', schema: 'x' } } }, { param: 'text.format.schema' }),
  m('max_output_tokens 0', { max_output_tokens: 0 }),
  m('max_output_tokens beyond the context', { max_output_tokens: 100_000 }, { code: 'context_length_exceeded' }),
  m('temperature above 2', { temperature: 5 }),
  m('top_p 0', { top_p: 0 }),
  m('top_logprobs 21', { top_logprobs: 21 }),
  m('parallel_tool_calls a string', { parallel_tool_calls: 'x' }),
  m('user a number', { user: 5 }),
  m('metadata a string', { metadata: 'x' }),
  m('reasoning a string', { reasoning: 'high' }),
  m('reasoning.effort a number', { reasoning: { effort: 5 } }),
  m('stream a string', { stream: 'x' }),
  m('input beyond the context', { input: LONG_TEXT }, { code: 'context_length_exceeded' }),
];

// ---- /generate -------------------------------------------------------------------------------

const GENERATE_BASE = { model: '$MODEL', text: 'Hi', sampling_params: { max_new_tokens: 8 } };

const GENERATE: Mutation[] = [
  m('model unknown', { model: 'no-such-model' }, { status: 404, code: 'model_not_found' }),
  m('neither text nor input_ids', { text: DROP }, { code: 'resolve_input_failed' }),
  m('both text and input_ids', { input_ids: [1, 2] }, { code: 'resolve_input_failed' }),
  m('text a number', { text: 5 }),
  m('batch text', { text: ['a', 'b'] }, { code: 'resolve_input_failed' }),
  m('input_ids a string', { text: DROP, input_ids: 'x' }),
  m('batch input_ids', { text: DROP, input_ids: [[1, 2]] }, { code: 'resolve_input_failed' }),
  m('input_ids negative', { text: DROP, input_ids: [-1] }, { code: 'resolve_input_failed' }),
  m('input_ids fractional', { text: DROP, input_ids: [1.5] }),
  m('input_ids empty', { text: DROP, input_ids: [] }, { code: 'resolve_input_failed' }),
  m('input_ids out of vocabulary', { text: DROP, input_ids: [999_999_999] }),
  m('input_ids beyond the context', { text: DROP, input_ids: Array.from({ length: 600 }, (_, i) => 100 + i) }, { code: 'context_length_exceeded' }),
  m('sampling_params a string', { sampling_params: 'x' }),
  m('max_new_tokens 0', { 'sampling_params.max_new_tokens': 0 }, { param: 'sampling_params.max_new_tokens' }),
  m('max_new_tokens beyond the context', { 'sampling_params.max_new_tokens': 100_000 }, { code: 'context_length_exceeded' }),
  m('min_new_tokens above max_new_tokens', { 'sampling_params.min_new_tokens': 9 }),
  m('temperature negative', { 'sampling_params.temperature': -1 }),
  m('top_p 0', { 'sampling_params.top_p': 0 }),
  m('top_k 0', { 'sampling_params.top_k': 0 }),
  m('n 0', { 'sampling_params.n': 0 }),
  m('stop empty', { 'sampling_params.stop': '' }),
  m('stop_token_ids negative', { 'sampling_params.stop_token_ids': [-1] }),
  m('json_schema bad type', { 'sampling_params.json_schema': { type: 'bogus' } }),
  m('json_schema not JSON', { 'sampling_params.json_schema': '{' }),
  m('regex with ebnf', { 'sampling_params.regex': 'a', 'sampling_params.ebnf': 'root ::= "a"' }),
  m('repetition_penalty 0', { 'sampling_params.repetition_penalty': 0 }),
  m('return_logprob a string', { return_logprob: 'x' }),
  m('top_logprobs_num 21', { return_logprob: true, top_logprobs_num: 21 }),
  m('token_ids_logprob', { token_ids_logprob: [1, 2] }),
  m('stream a string', { stream: 'x' }),
  m('rid empty', { rid: '' }),
  m('top_k 128 on TokenSpeed', { 'sampling_params.top_k': 128 }, { only: 'tokenspeed', code: 'invalid_request_parameters', param: 'sampling_params.top_k' }),
];

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

/** Every case; `big` adds the over-the-limit bodies (megabytes; sent once per engine). */
export function badRequests(): BadRequest[] {
  return [
    ...expand('/v1/chat/completions', CHAT_BASE, CHAT, 'openai'),
    ...expand('/v1/chat/completions', { ...CHAT_BASE, stream: true }, CHAT_STREAMED, 'openai', 'streaming: '),
    ...expand('/v1/completions', COMPLETION_BASE, COMPLETIONS, 'openai'),
    ...expand('/v1/completions', { ...COMPLETION_BASE, stream: true }, COMPLETIONS.filter((c) => c.status === undefined && !('stream' in c.patch) && !('best_of' in c.patch)).slice(0, 15), 'openai', 'streaming: '),
    ...expand('/v1/messages', MESSAGES_BASE, MESSAGES, 'anthropic'),
    ...expand('/v1/messages', { ...MESSAGES_BASE, stream: true }, MESSAGES.filter((c) => c.status === undefined && !('stream' in c.patch)).slice(0, 15), 'anthropic', 'streaming: '),
    ...expand('/v1/responses', RESPONSES_BASE, RESPONSES, 'openai'),
    ...expand('/generate', GENERATE_BASE, GENERATE, 'openai'),
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
];
