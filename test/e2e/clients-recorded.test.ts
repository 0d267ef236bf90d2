/**
 * Claude Code (`claude -p`, 2.1.332) and Codex (`codex exec`, 0.171.0) as they really talk to the
 * gateway: their request sequences, recorded live against `smg serve` + the mock engine with
 * scripts/record-requests.mjs (test/fixtures/clients/), replayed against the same setup (only
 * `model` rewritten to this run's) and read back the way each client reads them.
 *
 * Each sequence is a plain turn, then a tool loop: the model calls the client's shell tool, the
 * client runs it and sends the result, the model answers. Claude Code's second loop request sends
 * back the thinking block with the signature the gateway issued on the first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { thinkingSignature } from '../../src/api/anthropic/thinking-signature.js';
import { parseSse } from '../support/events.js';
import { AFTER_TOOL_TEXT, HELLO_TEXT } from './support/agent-replies.js';
import { type AgentServe, startAgentServe } from './support/agent-serve.js';
import { ROOT, waitFor } from './support/proc.js';

interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  status: number;
}

const fixture = (name: string): Recorded[] =>
  readFileSync(join(ROOT, 'test', 'fixtures', 'clients', name), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Recorded);

type Frame = Record<string, unknown> & { type: string };

async function replay(rig: AgentServe, r: Recorded): Promise<{ status: number; frames: Frame[]; text: string }> {
  const res = await fetch(rig.origin + r.path, {
    method: r.method,
    headers: { ...r.headers, authorization: 'Bearer unused' },
    body: JSON.stringify({ ...r.body, model: rig.model }),
  });
  const text = await res.text();
  const frames = res.headers.get('content-type')?.includes('text/event-stream')
    ? parseSse(text).map((f) => JSON.parse(f.data) as Frame)
    : [];
  return { status: res.status, frames, text };
}

describe('recorded agent clients replayed (e2e)', () => {
  let rig: AgentServe;
  beforeAll(async () => {
    rig = await startAgentServe();
  });
  afterAll(async () => {
    await rig?.stop();
  });

  describe('Claude Code -p', () => {
    const rows = fixture('claude-code-p.jsonl');

    /** What Claude Code's stream accumulator builds: blocks by index, deltas appended. */
    function message(frames: Frame[]) {
      const start = frames.find((f) => f.type === 'message_start') as unknown as { message: { usage: { input_tokens: number } } };
      const blocks: Record<string, unknown>[] = [];
      for (const f of frames) {
        if (f.type === 'content_block_start') blocks[f.index as number] = { ...(f.content_block as object) };
        if (f.type === 'content_block_delta') {
          const b = blocks[f.index as number];
          const d = f.delta as Record<string, string>;
          if (d.type === 'text_delta') b.text = (b.text as string) + d.text;
          if (d.type === 'thinking_delta') b.thinking = (b.thinking as string) + d.thinking;
          if (d.type === 'signature_delta') b.signature = d.signature;
          if (d.type === 'input_json_delta') b.partial = ((b.partial as string | undefined) ?? '') + d.partial_json;
        }
      }
      const delta = frames.find((f) => f.type === 'message_delta') as unknown as { delta: { stop_reason: string }; usage: { input_tokens: number } };
      return { start: start.message.usage.input_tokens, end: delta.usage.input_tokens, stop: delta.delta.stop_reason, blocks };
    }

    it('sends max_tokens 32000 with thinking on, streamed, to /v1/messages?beta=true', () => {
      expect(rows).toHaveLength(3);
      for (const r of rows) {
        expect(r.path).toBe('/v1/messages?beta=true');
        expect(r.body).toMatchObject({ max_tokens: 32000, stream: true, thinking: { type: 'adaptive' } });
      }
    });

    it('a plain turn: 200 (max_tokens lowered to the room left), text, real input_tokens in message_start', async () => {
      const { status, frames } = await replay(rig, rows[0]);
      expect(status).toBe(200);
      const m = message(frames);
      expect(m.start).toBeGreaterThan(10_000);
      expect(m.start).toBe(m.end);
      expect(m.blocks.map((b) => b.type)).toEqual(['thinking', 'text']);
      expect((m.blocks[1].text as string).trim()).toBe(HELLO_TEXT);
      expect(m.blocks[0].signature).toBe(thinkingSignature(m.blocks[0].thinking as string));
      expect(m.stop).toBe('end_turn');
    });

    it('the Bash tool loop: tool_use with its input, then the answer after the signed thinking block comes back', async () => {
      const first = message((await replay(rig, rows[1])).frames);
      expect(first.stop).toBe('tool_use');
      const [thinking, tool] = first.blocks;
      expect(thinking).toMatchObject({ type: 'thinking', thinking: '\nI will run ls.\n' });
      expect(thinking.signature).toBe(thinkingSignature('\nI will run ls.\n'));
      expect(tool).toMatchObject({ type: 'tool_use', name: 'Bash' });
      expect(JSON.parse(tool.partial as string)).toEqual({ command: 'ls', description: 'List files' });

      // Claude Code kept the thinking block (signature and all) in the history it sent next.
      const history = rows[2].body.messages as { role: string; content: unknown }[];
      const sentBack = history.flatMap((m) => (Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : []));
      expect(sentBack.find((b) => b.type === 'thinking')).toEqual({ type: 'thinking', thinking: '\nI will run ls.\n', signature: thinkingSignature('\nI will run ls.\n') });
      const second = await replay(rig, rows[2]);
      expect(second.status).toBe(200);
      const m = message(second.frames);
      expect(m.stop).toBe('end_turn');
      expect((m.blocks.find((b) => b.type === 'text')?.text as string).trim()).toBe(AFTER_TOOL_TEXT);
    });
  });

  describe('Codex exec', () => {
    const rows = fixture('codex-exec.jsonl');

    /** What Codex reads: the output items of response.output_item.done, and the completed response. */
    function items(frames: Frame[]) {
      expect(frames.some((f) => f.type === 'error' || f.type === 'response.failed')).toBe(false);
      const done = frames.filter((f) => f.type === 'response.output_item.done').map((f) => f.item as Record<string, unknown>);
      const completed = frames.find((f) => f.type === 'response.completed') as unknown as { response: Record<string, unknown> };
      return { done, response: completed.response };
    }
    const textOf = (item: Record<string, unknown>) => ((item.content as { text: string }[])[0].text ?? '').trim();

    it('sends a namespace tool and web_search among its tools, store false, streamed', () => {
      expect(rows).toHaveLength(3);
      for (const r of rows) {
        const types = (r.body.tools as { type: string }[]).map((t) => t.type);
        expect(types).toContain('namespace');
        expect(types).toContain('web_search');
        expect(r.body).toMatchObject({ stream: true, store: false, tool_choice: 'auto' });
      }
    });

    it('a plain turn: the message item with the answer; web_search dropped from the echo, the namespace kept', async () => {
      const { status, frames } = await replay(rig, rows[0]);
      expect(status).toBe(200);
      const { done, response } = items(frames);
      expect(done.map((i) => i.type)).toEqual(['reasoning', 'message']);
      expect(textOf(done[1])).toBe(HELLO_TEXT);
      // Codex asks for reasoning.summary 'auto' and shows the summary.
      expect(rows[0].body.reasoning).toEqual({ summary: 'auto' });
      expect(done[0].summary).toEqual([{ type: 'summary_text', text: '\nA greeting.\n' }]);
      const echoed = (response.tools as { type: string }[]).map((t) => t.type);
      expect(echoed).toContain('namespace');
      expect(echoed).not.toContain('web_search');
      // The access-log line (written once the stream ended) names what was dropped.
      const line = await waitFor('the access-log line', () => rig.output().split('\n').find((l) => l.includes('POST /v1/responses 200')), 10_000);
      expect(line).toContain('notes=dropped hosted tools: web_search');
    });

    it('the exec_command tool loop: a function_call item, then the answer after its output', async () => {
      const call = items((await replay(rig, rows[1])).frames);
      const fc = call.done.find((i) => i.type === 'function_call');
      expect(fc).toMatchObject({ name: 'exec_command', call_id: expect.stringMatching(/^call_/) });
      expect(fc).not.toHaveProperty('namespace');
      expect(JSON.parse(fc?.arguments as string)).toEqual({ cmd: 'ls' });
      // Codex sent the call back with the summary it was given, and the call's output.
      const history = rows[2].body.input as Record<string, unknown>[];
      expect(history.find((i) => i.type === 'reasoning')?.summary).toEqual([{ type: 'summary_text', text: '\nI will run ls.\n' }]);
      expect(history.find((i) => i.type === 'function_call_output')).toMatchObject({ call_id: expect.stringMatching(/^call_/) });
      const after = items((await replay(rig, rows[2])).frames);
      expect(textOf(after.done.find((i) => i.type === 'message') as Record<string, unknown>)).toBe(AFTER_TOOL_TEXT);
    });
  });
});
