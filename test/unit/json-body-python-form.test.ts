/**
 * The body parser keeps the Python form (python-json.ts) of the nested values templates print
 * (tool schemas, tool-call arguments, template kwargs), and skips the second, Python-exact parse
 * when the only numbers JSON.parse would change are top-level scalars such as `"temperature": 0.7`.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/api/json-body.js';
import { losesPythonForm, pythonValue } from '../../src/pipeline/chat-prompt/template-compiler/python-json.js';
import { FloatBox, PyDict } from '../../src/pipeline/chat-prompt/template-compiler/values.js';

describe('the Python form of a request body', () => {
  it('is kept for a float inside a tool schema, beside a top-level float', () => {
    const body = parseJsonText(
      '{"temperature": 0.7, "tools": [{"type": "function", "function": {"name": "f", "parameters": {"minimum": 1.0, "maximum": 1e-07}}}]}',
    ) as { tools: { function: { parameters: object } }[] };
    const params = pythonValue(body.tools[0].function.parameters) as Record<string, unknown>;
    expect(params.minimum).toBeInstanceOf(FloatBox);
    expect(params).not.toBe(body.tools[0].function.parameters);
  });

  it('is kept for integer-like keys and big ints in nested objects and under a top-level array', () => {
    expect(pythonValue((parseJsonText('{"chat_template_kwargs": {"b": 1, "2": 3}}') as { chat_template_kwargs: object }).chat_template_kwargs)).toBeInstanceOf(PyDict);
    expect(losesPythonForm('{"logit_bias": {"12": 5}}')).toBe(true);
    expect(losesPythonForm('{"m": [{"x": 12345678901234567890}]}')).toBe(true);
    expect(losesPythonForm('[1.0]')).toBe(true);
    expect(losesPythonForm('[{"a": 1.0}]')).toBe(true);
  });

  it('is not made when only top-level scalars would change', () => {
    const text = '{"model": "m", "temperature": 0.7, "top_p": 1.0, "seed": 12345678901234567890, "messages": [{"role": "user", "content": "1.5 \\" 2.0"}]}';
    expect(losesPythonForm(text)).toBe(false);
    const body = parseJsonText(text) as { messages: object[] };
    expect(pythonValue(body)).toBe(body);
    expect(pythonValue(body.messages)).toBe(body.messages);
    // Numbers inside strings never count, at any depth.
    expect(losesPythonForm('{"messages": [{"content": "pi is 3.14 and {\\"2\\": 1.0}"}]}')).toBe(false);
  });
});
