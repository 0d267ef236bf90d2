/**
 * The `signature` of a thinking block. Anthropic's is an opaque verification token that clients
 * must send back unchanged; clients (Claude Code, the AI SDK, LangChain) keep a thinking block in
 * the next turn's history only when it carries one, so an empty signature loses the model's
 * reasoning between turns. Here it is a digest of the thinking text: opaque to clients, stateless
 * (any replica and any restart issue the same one) and never checked on the way back in — the
 * engines take the thinking text, not the signature, so a block with any signature is accepted.
 * https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (signature, signature_delta)
 */
import { createHash, type Hash } from 'node:crypto';

const PREFIX = 'smg1.';

/** Builds the signature of one thinking block from its text as it streams. */
export class ThinkingSignature {
  private readonly hash: Hash = createHash('sha256');

  add(text: string): void {
    this.hash.update(text);
  }

  digest(): string {
    return PREFIX + this.hash.digest('base64url');
  }
}

export function thinkingSignature(text: string): string {
  const s = new ThinkingSignature();
  s.add(text);
  return s.digest();
}
