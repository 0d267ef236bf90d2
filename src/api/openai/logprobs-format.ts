import type { TokenLogprob } from '../../engine/types.js';
import type { Decoder } from '../../pipeline/detokenizer.js';

export interface ChatTopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface ChatLogprobEntry extends ChatTopLogprob {
  top_logprobs: ChatTopLogprob[];
}

/** A token's text as OpenAI shows it in logprobs: special tokens included. */
function tokenText(tok: Decoder, id: number): string {
  try {
    return tok.decode([id], false);
  } catch {
    return `<token_${id}>`;
  }
}

function entry(tok: Decoder, id: number, logprob: number): ChatTopLogprob {
  const token = tokenText(tok, id);
  return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
}

/**
 * Chat logprobs (request-pipeline §9.1): the sampled token first, then the ranked candidates that
 * are not the sampled id, cut to `k` entries.
 */
export function chatLogprobs(tok: Decoder, positions: readonly TokenLogprob[], k: number): ChatLogprobEntry[] {
  return positions.map((p) => {
    const sampled = entry(tok, p.tokenId, p.logprob);
    const top: ChatTopLogprob[] = [];
    if (k > 0) {
      top.push(sampled);
      for (const cand of p.top) {
        if (top.length >= k) break;
        if (cand.tokenId !== p.tokenId) top.push(entry(tok, cand.tokenId, cand.logprob));
      }
    }
    return { ...sampled, top_logprobs: top };
  });
}

export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: number[];
  top_logprobs: Record<string, number>[];
  text_offset: number[];
}

/** The legacy completions shape; offsets count from `startOffset` (the echoed prompt's length). */
export function completionLogprobs(
  tok: Decoder,
  positions: readonly TokenLogprob[],
  k: number,
  startOffset: number,
): CompletionLogprobs {
  const out: CompletionLogprobs = { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
  let offset = startOffset;
  for (const p of positions) {
    const text = tokenText(tok, p.tokenId);
    out.tokens.push(text);
    out.token_logprobs.push(p.logprob);
    const top: Record<string, number> = {};
    // The sampled token first (its text is already known), then the ranked candidates.
    for (let j = -1, n = 0; j < p.top.length && n < k; j++) {
      const cand = j < 0 ? p : p.top[j];
      const t = j < 0 ? text : tokenText(tok, cand.tokenId);
      if (t in top) continue;
      top[t] = cand.logprob;
      n++;
    }
    out.top_logprobs.push(top);
    out.text_offset.push(offset);
    offset += text.length;
  }
  return out;
}
