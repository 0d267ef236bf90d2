/** Tokenizer could not be loaded; the message names the source and the reason. */
export class TokenizerLoadError extends Error {
  override name = 'TokenizerLoadError';
}
