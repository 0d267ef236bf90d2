/**
 * Ways to cut a text into streaming deltas, for "streamed equals non-streamed" parser tests:
 * every split of a short text (2^(n-1) of them), or seeded random splits of a long one. Splits
 * fall on UTF-16 code-point boundaries, as decoded text deltas do.
 */

/** All splits of `text` into non-empty deltas. Use on texts up to ~16 code points. */
export function* allSplits(text: string): Generator<string[]> {
  const cps = Array.from(text);
  const n = cps.length;
  if (n === 0) {
    yield [];
    return;
  }
  const cuts = n - 1;
  for (let mask = 0; mask < 2 ** cuts; mask++) {
    const parts: string[] = [];
    let cur = cps[0];
    for (let i = 1; i < n; i++) {
      if (mask & (1 << (i - 1))) {
        parts.push(cur);
        cur = cps[i];
      } else cur += cps[i];
    }
    parts.push(cur);
    yield parts;
  }
}

/** A small deterministic PRNG (mulberry32), so a failing split can be reproduced from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` random splits with deltas of 1..maxLen code points, plus one-per-code-point and whole. */
export function* randomSplits(text: string, count: number, seed = 1, maxLen = 8): Generator<string[]> {
  const cps = Array.from(text);
  yield cps.slice();
  yield [text];
  const next = rng(seed);
  for (let k = 0; k < count; k++) {
    const parts: string[] = [];
    let i = 0;
    while (i < cps.length) {
      const len = 1 + Math.floor(next() * maxLen);
      parts.push(cps.slice(i, i + len).join(''));
      i += len;
    }
    yield parts;
  }
}
