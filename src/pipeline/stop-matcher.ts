/**
 * Gateway-side stop strings on decoded text (request-pipeline.md §6.2 steps 5–7). Engines get no
 * stop strings over ZMQ, so the gateway must find them, and a stop string can arrive split over
 * several text deltas. Text that might be the start of a stop string is therefore held back
 * ("jailed") until the next delta shows whether the stop completes.
 */

export interface StopMatchResult {
  /** Text that is now safe to emit. */
  text: string;
  /** A stop string has matched; all later input is ignored. */
  stopped: boolean;
  /** The stop string that matched (set on the call that stopped and after). */
  matched: string | null;
}

export interface StopMatcherOptions {
  /** Keep the matched stop string in the output (`no_stop_trim` / include_stop_str_in_output). */
  includeStop?: boolean;
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

export class StopStringMatcher {
  private readonly stops: string[];
  private readonly includeStop: boolean;
  private jail = '';
  private matchedStop: string | null = null;

  constructor(stops: readonly string[], opts: StopMatcherOptions = {}) {
    this.stops = [...new Set(stops.filter((s) => s.length > 0))];
    this.includeStop = opts.includeStop ?? false;
  }

  get stopped(): boolean {
    return this.matchedStop !== null;
  }

  get matched(): string | null {
    return this.matchedStop;
  }

  /** Text currently held back. */
  get held(): string {
    return this.jail;
  }

  /** Feeds newly decoded text. */
  push(text: string): StopMatchResult {
    if (this.matchedStop !== null) return { text: '', stopped: true, matched: this.matchedStop };
    if (this.stops.length === 0) return { text, stopped: false, matched: null };
    const previous = this.jail.length;
    this.jail += text;

    // Earliest-completing occurrence; on a tie the longer stop (it starts earlier) wins.
    // The old jail held no complete match, so a match must end inside the new text.
    let bestStart = -1;
    let bestEnd = Infinity;
    let best: string | null = null;
    for (const stop of this.stops) {
      const start = this.jail.indexOf(stop, Math.max(0, previous - stop.length + 1));
      if (start < 0) continue;
      const end = start + stop.length;
      if (end < bestEnd || (end === bestEnd && start < bestStart)) {
        bestStart = start;
        bestEnd = end;
        best = stop;
      }
    }
    if (best !== null) {
      const out = this.jail.slice(0, this.includeStop ? bestEnd : bestStart);
      this.jail = '';
      this.matchedStop = best;
      return { text: out, stopped: true, matched: best };
    }

    const cut = this.jail.length - this.heldSuffixLength();
    const out = this.jail.slice(0, cut);
    this.jail = this.jail.slice(cut);
    return { text: out, stopped: false, matched: null };
  }

  /** End of generation: held text never completed a stop, so it is plain output. */
  flush(): string {
    const out = this.jail;
    this.jail = '';
    return out;
  }

  /** Length of the longest jail suffix that is a proper prefix of some stop string. */
  private heldSuffixLength(): number {
    const jail = this.jail;
    let longest = 0;
    for (const stop of this.stops) {
      const max = Math.min(stop.length - 1, jail.length);
      for (let k = max; k > longest; k--) {
        if (jail.startsWith(stop.slice(0, k), jail.length - k)) {
          longest = k;
          break;
        }
      }
    }
    // Never split a surrogate pair between emitted and held text.
    const cut = jail.length - longest;
    if (longest > 0 && cut > 0 && isLow(jail.charCodeAt(cut)) && isHigh(jail.charCodeAt(cut - 1))) longest++;
    return longest;
  }
}
