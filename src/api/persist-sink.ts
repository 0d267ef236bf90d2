/**
 * A sink that holds a generation's `end` events until an async step has run on the whole result:
 * the Responses API stores a turn before the client sees it complete (the JSON answer, or the
 * stream's response.completed), so a next turn sent the moment the client has the answer always
 * finds it, on this gateway or any other one sharing the database. Everything else streams through
 * at once; if the step fails the request fails with its error (a 503 before the head, an error
 * event on a stream).
 */
import { type Collected, ChoiceCollector } from '../pipeline/collect.js';
import type { GenEvent, GenerationSink } from '../pipeline/events.js';

export function persistBeforeEnd(
  inner: GenerationSink,
  choices: number,
  perPrompt: number,
  persist: (collected: Collected) => Promise<void>,
): GenerationSink {
  const copy = new ChoiceCollector(choices, perPrompt);
  const held: GenEvent[] = [];
  let failed = false;
  return {
    push(ev) {
      copy.push(ev);
      if (ev.kind === 'end') held.push(ev);
      else inner.push(ev);
    },
    end() {
      copy.end();
      copy.result.then(persist).then(
        () => {
          if (failed) return;
          for (const ev of held) inner.push(ev);
          inner.end();
        },
        (err: unknown) => {
          if (failed) return;
          failed = true;
          inner.fail(err);
        },
      );
    },
    fail(err) {
      if (failed) return;
      failed = true;
      inner.fail(err);
    },
  };
}
