/**
 * Texts (tokenizer/fast-bpe/probe-texts.ts, plus a rendered chat) with the ids the event loop's
 * tokenizer gives them: a prompt worker must reproduce them all before it takes jobs. Guards
 * against the fast encoder or the Rust binding reading a tokenizer.json differently.
 */
import type { ChatTemplate } from '../chat-prompt/chat-template.js';
import { PARITY_SAMPLES, specialTokenProbe } from '../tokenizer/fast-bpe/probe-texts.js';
import type { LoadedTokenizer } from '../tokenizer/index.js';

export function parityProbes(tokenizer: LoadedTokenizer, template: ChatTemplate | null): Array<{ text: string; ids: number[] }> {
  const texts = [...PARITY_SAMPLES];
  for (const id of tokenizer.specialTokenIds) {
    const token = tokenizer.idToToken(id);
    if (token) texts.push(specialTokenProbe(token));
  }
  if (template) {
    try {
      texts.push(
        template.render({
          messages: [
            { role: 'system', content: 'You are a helpful assistant.' },
            { role: 'user', content: 'What is the weather in Paris? 天气' },
            { role: 'assistant', content: 'It is sunny.' },
            { role: 'user', content: 'Thanks 👍' },
          ],
        }),
      );
    } catch {
      // A template that rejects this conversation (a fixed role order, say) is probed by the rest.
    }
  }
  return texts.map((text) => ({ text, ids: tokenizer.encode(text, false) }));
}
