/**
 * Turning a value into text as jinja2 does: `{{ v }}` prints str(v) (Undefined prints nothing,
 * None prints `None`, a dict prints its Python repr).
 */
import { pyStr } from './py.js';

/** What `{{ v }}` appends. */
export function printed(v: unknown): string {
  return typeof v === 'string' ? v : pyStr(v);
}
