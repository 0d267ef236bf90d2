// Run as a child process by test/unit/prompt-pool.test.ts: starts a prompt pool, encodes once,
// prints what it got and then simply returns. The process must exit on its own.
import { ChatTemplate } from '../../src/pipeline/chat-prompt/chat-template.js';
import { startPromptPool } from '../../src/pipeline/prompt-pool/start.js';
import { loadTokenizer } from '../../src/pipeline/tokenizer/index.js';

const tok = await loadTokenizer(process.argv[2]);
const pool = startPromptPool(tok, ChatTemplate.compile(tok.chatTemplate, tok));
await pool.whenReady();
const ids = (await pool.encodeText(process.argv[3])) ?? [];
console.log(`ready ${pool.readyCount} ${ids.length}`);
