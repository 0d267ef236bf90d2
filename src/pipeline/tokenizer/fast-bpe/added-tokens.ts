/**
 * Hand-written for speed (see encoder.ts): finds added tokens in text the way the Rust library's
 * AddedVocabulary does (tokenizers/src/tokenizer/added_vocabulary.rs: an Aho-Corasick automaton
 * with MatchKind::LeftmostLongest, non-overlapping): the match that starts first wins, and of
 * those starting there the longest. Only tokens without lstrip / rstrip / single_word reach here
 * (the loader refuses the others), so a match is exactly the token's text.
 *
 * A trie over UTF-16 units, entered only at units that begin some token (a bitmap), so text
 * without any candidate first unit costs one array read per unit.
 */

interface TrieNode {
  id: number;
  next: Map<number, TrieNode> | null;
}

export class AddedTokenFinder {
  private readonly root: TrieNode = { id: -1, next: null };
  private readonly first = new Uint8Array(65536);
  /** Set by `find`: end (exclusive) and id of the match it returned. */
  matchEnd = 0;
  matchId = -1;

  constructor(tokens: ReadonlyArray<{ content: string; id: number }>) {
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
      this.first[content.charCodeAt(0)] = 1;
    }
  }

  /** Start of the first match at or after `from`, or -1; sets matchEnd / matchId. */
  find(text: string, from: number): number {
    const first = this.first;
    const len = text.length;
    for (let i = from; i < len; i++) {
      if (first[text.charCodeAt(i)] === 0) continue;
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
