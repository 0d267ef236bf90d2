/**
 * The simulated Qwen3's answers for the agent-client e2e files (and the live runs the fixtures
 * under test/fixtures/clients/ were recorded from): a `<think>` block, then text or a Hermes
 * `<tool_call>`. A prompt holding a tool result gets the final answer, so a tool loop ends; the
 * first matching rule wins (`--mock-replies`).
 */
import type { ReplyRule } from '../../../src/mock-engine/replies.js';

export const AFTER_TOOL_TEXT = 'Done: the files are listed above.';
export const HELLO_TEXT = 'Hello from smg!';
/** The answer to any prompt no rule matches (`--mock-text`). */
export const DEFAULT_TEXT = 'OK.';

const call = (name: string, args: Record<string, unknown>) =>
  `<think>\nI will run ls.\n</think>\n\n<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;

export const AGENT_REPLIES: ReplyRule[] = [
  { when: '<tool_response>', reply: `<think>\nThe tool answered.\n</think>\n\n${AFTER_TOOL_TEXT}` },
  { when: 'List the files with exec_command', reply: call('exec_command', { cmd: 'ls' }) },
  { when: 'List the files with Bash', reply: call('Bash', { command: 'ls', description: 'List files' }) },
  { when: 'List the files with list_files', reply: call('list_files', { dir: '.' }) },
  { when: 'Say hello', reply: `<think>\nA greeting.\n</think>\n\n${HELLO_TEXT}` },
];

/** Mock-engine flags: Qwen3's real context (40,960 tokens) and the default answer. */
export const AGENT_ENGINE_ARGS = ['--max-model-len', '40960', '--mock-text', `<think>\nNothing to think about.\n</think>\n\n${DEFAULT_TEXT}`];
