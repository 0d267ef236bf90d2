/**
 * What cache_aware matches on for an HTTP worker: the request's text, since the front never
 * tokenizes (SMG's HTTP router routes cache_aware on the request text as well: smg-project/smg
 * model_gateway/src/routers/http/router.rs, RoutingDerivatives { text }). The text is turned into
 * code points so the shared block index (policies/prefix-index.ts) keys 16-character blocks:
 * a conversation's next turn repeats the previous turns' text, so it lands where they went.
 */

/** Code points looked at, at most: a prefix this long already tells conversations apart. */
const MAX_CODE_POINTS = 32 * 1024;

function collect(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) collect(x, out);
  else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // Message / content-part / input-item shapes of every protocol: the role tells turns apart.
    if (typeof o.role === 'string') out.push(`\u0000${o.role}\u0000`);
    for (const key of ['text', 'content', 'input', 'prompt', 'messages', 'system', 'instructions', 'input_ids']) {
      if (key in o) collect(o[key], out);
    }
  } else if (typeof v === 'number') out.push(String.fromCodePoint(Math.abs(Math.trunc(v)) % 0x10ffff));
}

export function routingText(body: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of ['instructions', 'system', 'messages', 'prompt', 'input', 'text', 'input_ids']) {
    if (key in body) collect(body[key], parts);
  }
  return parts.join('');
}

export function routingTokens(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    out.push(ch.codePointAt(0) as number);
    if (out.length >= MAX_CODE_POINTS) break;
  }
  return out;
}
