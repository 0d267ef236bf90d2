/**
 * Hand-written for speed (see encoder.ts): finds added tokens in text the way the Rust library's
 * AddedVocabulary does (tokenizers/src/tokenizer/added_vocabulary.rs: an Aho-Corasick automaton
 * with MatchKind::LeftmostLongest, non-overlapping): the match that starts first wins, and of
 * those starting there the longest. Only tokens without lstrip / rstrip / single_word reach here
 * (the loader refuses the others), so a match is exactly the token's text.
 *
 * A trie over UTF-16 units, entered only where indexOf (or a regex, when tokens begin with
 * different units) finds a unit that begins some token: both scan natively and flatten a
 * concatenated string once (charCodeAt would walk its rope unit by unit), so text without a
 * candidate costs next to nothing.
 */

interface TrieNode {
  id: number;
  next: Map<number, TrieNode> | null;
}

export class AddedTokenFinder {
  private readonly root: TrieNode = { id: -1, next: null };
  /** The one unit every token begins with (found with indexOf), else a class of them. */
  private readonly firstUnit: string | null;
  private readonly first: RegExp;
  /** Set by `find`: end (exclusive) and id of the match it returned. */
  matchEnd = 0;
  matchId = -1;

  constructor(tokens: ReadonlyArray<{ content: string; id: number }>) {
    const firstUnits = new Set<number>();
    for (const { content, id } of tokens) {
      let node = this.root;
      for (let i = 0; i < content.length; i++) {
        const unit = content.charCodeAt(i);
        node.next ??= new Map();
        let child = node.next.get(unit);
        if (!child) {
          child = { id: -1, next: null };
          node.next.set(unit, child);
        }
        node = child;
      }
      node.id = id;
      firstUnits.add(content.charCodeAt(0));
    }
    // Code units, not code points: no `u` flag, so a token may begin with either surrogate half.
    const units = [...firstUnits].map((u) => `\\u${u.toString(16).padStart(4, '0')}`).join('');
    this.first = new RegExp(`[${units}]`, 'g');
    this.firstUnit = firstUnits.size === 1 ? String.fromCharCode(...firstUnits) : null;
  }

  /** The next position at or after `from` where some token could begin, or -1. */
  private candidate(text: string, from: number): number {
    if (this.firstUnit !== null) return text.indexOf(this.firstUnit, from);
    this.first.lastIndex = from;
    return this.first.exec(text)?.index ?? -1;
  }

  /** Start of the first match at or after `from`, or -1; sets matchEnd / matchId. */
  find(text: string, from: number): number {
    const len = text.length;
    for (let i = this.candidate(text, from); i >= 0; i = this.candidate(text, i + 1)) {
      let node: TrieNode | undefined = this.root;
      let end = -1;
      let id = -1;
      for (let j = i; j < len && node.next !== null; j++) {
        node = node.next.get(text.charCodeAt(j));
        if (node === undefined) break;
        if (node.id >= 0) {
          end = j + 1;
          id = node.id;
        }
      }
      if (end >= 0) {
        this.matchEnd = end;
        this.matchId = id;
        return i;
      }
    }
    return -1;
  }
}
