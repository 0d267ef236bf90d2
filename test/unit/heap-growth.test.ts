/**
 * The gateway fixes V8's old-generation growing factor (src/util/heap-growth.ts) unless the user
 * gave node their own --heap-growing-percent. (Its effect is measured by scripts/arrivals-ab.ts and
 * the bench, not here: GC counts depend on the machine's load.)
 */
import { describe, expect, it } from 'vitest';
import { tuneHeapGrowth } from '../../src/util/heap-growth.js';

describe('tuneHeapGrowth', () => {
  it("leaves the user's own --heap-growing-percent alone", () => {
    expect(tuneHeapGrowth(['--heap-growing-percent=50'])).toBe(false);
    expect(tuneHeapGrowth(['--enable-source-maps', '--heap_growing_percent=50'])).toBe(false);
  });

  it('sets the flag when the user gave none', () => {
    expect(tuneHeapGrowth(['--enable-source-maps', '--max-old-space-size=4096'])).toBe(true);
  });
});
