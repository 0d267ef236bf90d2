/**
 * `--mock-replies <file>`: per-request scripted answers, so a test can make the simulated model
 * say a chosen text (a `<think>` block, a tool call in a model's own syntax) for a chosen prompt.
 * The file is a JSON array of `{"when": "<text>", "reply": "<text>"}`; a request whose prompt,
 * decoded with special tokens, contains `when` gets that rule's reply (first match wins), then EOS.
 * Requests that match no rule get the default script (`--mock-text`).
 */
import { readFileSync } from 'node:fs';

export interface ReplyRule {
  when: string;
  reply: string;
}

export function loadReplyRules(file: string): ReplyRule[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`--mock-replies ${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`--mock-replies ${file}: expected a JSON array of {"when", "reply"} rules`);
  return parsed.map((r, i) => {
    const rule = r as Partial<ReplyRule> | null;
    if (!rule || typeof rule.when !== 'string' || typeof rule.reply !== 'string' || rule.when === '') {
      throw new Error(`--mock-replies ${file}: rule ${i} needs a non-empty string "when" and a string "reply"`);
    }
    return { when: rule.when, reply: rule.reply };
  });
}
