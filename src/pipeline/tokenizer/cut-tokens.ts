/**
 * Added tokens after which a text can be cut and the pieces encoded apart (then concatenated)
 * with exactly the ids of the whole. Every Hugging Face tokenizer first splits its input on added
 * tokens and encodes each piece between them on its own (normalizer, pre-tokenizer, model), so a
 * cut right after an added token that the whole-text encode also matches there changes nothing —
 * provided that:
 * - the token is matched on the raw text (`normalized: false`) and strips nothing around it nor
 *   needs word boundaries (`lstrip`, `rstrip`, `single_word` all false);
 * - no occurrence of it can be claimed by another match: no other added token contains it or
 *   overlaps it from the left, and it does not overlap itself;
 * - the pre-tokenizer does not depend on where a piece sits in the text (Metaspace's
 *   `prepend_scheme: first` does; ByteLevel's `add_prefix_space` could), so only the listed
 *   types are accepted.
 * Used to encode a long prompt in parallel (prompt-pool/); the differential test checks the ids.
 */

interface AddedTokenJson {
  content?: unknown;
  single_word?: unknown;
  lstrip?: unknown;
  rstrip?: unknown;
  normalized?: unknown;
}

const POSITION_FREE = new Set(['Split', 'Digits', 'Punctuation', 'Whitespace', 'WhitespaceSplit', 'BertPreTokenizer']);

function positionFree(pre: unknown): boolean {
  if (pre === null || pre === undefined) return true;
  if (typeof pre !== 'object') return false;
  const p = pre as { type?: unknown; pretokenizers?: unknown; add_prefix_space?: unknown };
  if (p.type === 'Sequence') return Array.isArray(p.pretokenizers) && p.pretokenizers.every(positionFree);
  if (p.type === 'ByteLevel') return p.add_prefix_space === false;
  return typeof p.type === 'string' && POSITION_FREE.has(p.type);
}

/** Whether a proper suffix of `a` is a proper prefix of `b` (an `a` match could run into a `b`). */
function overlaps(a: string, b: string): boolean {
  for (let k = 1; k < Math.min(a.length, b.length + 1); k++) if (b.startsWith(a.slice(a.length - k))) return true;
  return false;
}

/** The cut tokens of a parsed tokenizer.json; [] when none is safe or the format is unexpected. */
export function safeCutTokens(tokenizerJson: unknown): string[] {
  if (tokenizerJson === null || typeof tokenizerJson !== 'object') return [];
  const json = tokenizerJson as { added_tokens?: unknown; pre_tokenizer?: unknown };
  if (!Array.isArray(json.added_tokens) || !positionFree(json.pre_tokenizer)) return [];
  const added = (json.added_tokens as AddedTokenJson[]).filter((t): t is AddedTokenJson & { content: string } => typeof t?.content === 'string' && t.content !== '');
  const all = added.map((t) => t.content);
  return added
    .filter((t) => t.normalized === false && t.lstrip === false && t.rstrip === false && t.single_word === false)
    .map((t) => t.content)
    .filter((c) => {
      if (overlaps(c, c)) return false;
      return all.every((u) => u === c || (!u.includes(c) && !overlaps(u, c)));
    });
}
