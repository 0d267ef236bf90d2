/**
 * The parse of a large request body (a long prompt: 131k tokens is ~0.7 MB of JSON, a 2,000-message
 * conversation ~1.2 MB) in pieces that let the event loop turn between them. Done in one go, the
 * depth scan, JSON.parse and the Python-number scan of such a body held the loop for 3-6 ms at a
 * time (more on a busy box), stalling every stream the process serves. Here each linear scan runs in
 * slices of SLICE_MS with a turn of the loop (setImmediate: timers and I/O run) between them, and
 * JSON.parse, which cannot be cut, runs in a turn of its own (~1 ms per MB).
 *
 * Same results and the same errors as the one-go path of json-body.ts, in the same order: the
 * depth refusal first, then JSON.parse's syntax error, then the Python form (python-json.ts).
 */
import { jsonParseError } from '../pipeline/errors.js';
import { laterTurn } from '../util/fair-turn.js';
import { MAX_JSON_DEPTH, depthErrorText, scanDepth, type DepthScan } from '../util/json-depth.js';
import { keepPythonForm, lossyTokensFrom, newLossyScan } from '../pipeline/chat-prompt/template-compiler/python-json.js';

/** Bodies of at least this many characters take this path (smaller ones parse in well under 1 ms). */
export const LARGE_BODY_CHARS = 64 * 1024;

/** The longest piece of scanning done in one turn (the fair-turn slice, util/fair-turn.ts). */
const SLICE_MS = 1;

/** Each piece waits its turn with the other request work (a shared budget per turn). */
const nextTurn = laterTurn;

export async function parseLargeJsonBody(text: string): Promise<unknown> {
  const depth: DepthScan = { i: 0, depth: 0, inString: false };
  let at: number | null = null;
  // The body was just joined and decoded in this turn (~1 ms per MB): the scan starts in the next.
  while (at === null) {
    await nextTurn();
    at = scanDepth(text, depth, MAX_JSON_DEPTH, performance.now() + SLICE_MS);
  }
  if (at >= 0) throw jsonParseError(`JSON syntax error: ${depthErrorText(text, at)}`);
  await nextTurn();
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw jsonParseError(`JSON syntax error: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null) return value;
  const scan = newLossyScan();
  let resume: number | null = 0;
  while (resume !== null) {
    await nextTurn();
    resume = lossyTokensFrom(text, resume, performance.now() + SLICE_MS, scan);
  }
  if (scan.lossy) {
    await nextTurn();
    try {
      keepPythonForm(value, text, scan.stops);
    } catch (err) {
      throw jsonParseError(`JSON syntax error: ${(err as Error).message}`);
    }
  }
  // What the caller does next with a long prompt (render, length bound, the copy to a prompt
  // thread: ~1-2 ms) starts a turn's share of its own rather than running on in the turn of the
  // last scan slice (turn tracer: a 1 ms lossy-scan slice and that chain held one turn 3-4.5 ms).
  await nextTurn();
  return value;
}
