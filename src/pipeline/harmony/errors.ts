/** A conversation that cannot be put into Harmony form (the chat route answers 400). */
export class HarmonyRenderError extends Error {
  override readonly name = 'HarmonyRenderError';
}
