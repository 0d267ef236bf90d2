/**
 * One full garbage collection after huge request bodies are done with. A 28 MB body is held as a
 * Buffer, a string, its parsed copy and a rendered prompt, all in V8's large-object space or as
 * external memory, and they are freed only by a major GC. An idle gateway allocates almost nothing,
 * so none comes: measured, eight refused 28 MB bodies left RSS 300 MB above its baseline for as
 * long as the gateway stayed quiet. One GC once the last big body is released (debounced, so a
 * burst costs one) gives it back. A full GC of a few hundred MB heap pauses the loop for tens of
 * ms, which is why it runs only after bodies this big, never per request.
 *
 * `gc` is V8's own, exposed at run time (node's --expose-gc flag set through v8.setFlagsFromString
 * and read from a fresh context, where V8 installs it).
 */
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | null | undefined;
let timer: NodeJS.Timeout | null = null;

function v8Gc(): (() => void) | null {
  if (gc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      const fn: unknown = vm.runInNewContext('gc');
      gc = typeof fn === 'function' ? (fn as () => void) : null;
    } catch {
      gc = null;
    }
  }
  return gc;
}

/** One full GC now; false when V8's gc could not be exposed. */
export function collectNow(): boolean {
  const fn = v8Gc();
  fn?.();
  return fn !== null;
}

/** Runs one full GC `delayMs` after the last call (each call pushes it back). */
export function collectSoon(delayMs = 1000): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = null;
    collectNow();
  }, delayMs);
  timer.unref();
}
