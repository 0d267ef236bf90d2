/**
 * The fixed rich context the template-compiler probes render on (template-probes.ts): every kind
 * of value a template meets, by name.
 */

export const CTX: Record<string, unknown> = {
  s: 'Hello World',
  e: '',
  pad: '  \n padded \n ',
  csv: 'a,b,,c',
  uni: 'é😀\u2028x',
  n: 3,
  f: 2.5,
  z: 0,
  neg: -2,
  big: 12345678901,
  t: true,
  fa: false,
  nul: null,
  arr: [1, 'two', 3.5, null, true, [1, 2], { a: 1 }],
  empty: [],
  strs: ['b', 'A', 'c', 'A'],
  nums: [3, 1, 2, 1],
  obj: { b: 1, a: [1, 2], c: { d: 'x' }, 10: 'ten', get: 'own' },
  eobj: {},
  people: [
    { name: 'Ann', age: 31, tags: ['x'], nested: { k: 'v1' } },
    { name: 'bob', age: 25, nested: { k: 'v2' } },
    { name: 'Cy', age: null, tags: [] },
  ],
  pairs: [
    ['k1', 'v1'],
    ['k2', 'v2'],
  ],
  msgs: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'hi <tool_response>' },
    { role: 'assistant', content: '<think>\nplan\n</think>\n\nyo', tool_calls: [{ function: { name: 'f', arguments: { x: 1 } } }] },
    { role: 'tool', content: '<tool_response>r</tool_response>' },
    { role: 'user', content: [{ type: 'text', text: 'part' }] },
  ],
};
