/** Tool-call arguments as clients receive them: compact JSON (request-pipeline §11.3). */

/** Compact JSON of a complete argument text, or null when it is not valid JSON. */
export function compactJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}
