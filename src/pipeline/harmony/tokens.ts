/**
 * The Harmony format's special tokens, as text. Prompts are rendered as strings and tokenized with
 * special tokens recognized; completions are decoded with special tokens visible, so both sides
 * work on these strings. Ids (o200k_harmony): see the table in openai/harmony `docs/format.md`
 * ("Special Tokens"); `stops.ts` looks the two stop ids up from the tokenizer instead of assuming
 * them.
 */

/** Begins a message; the header (role, recipient, channel, content type) follows. id 200006 */
export const START = '<|start|>';
/** Ends a complete message. id 200007 */
export const END = '<|end|>';
/** Separates the header from the content. id 200008 */
export const MESSAGE = '<|message|>';
/** Introduces the channel name inside a header. id 200005 */
export const CHANNEL = '<|channel|>';
/** Introduces the data type of a tool call's content (`<|constrain|>json`). id 200003 */
export const CONSTRAIN = '<|constrain|>';
/** The model is done sampling: a decode-time stop, never part of a prompt. id 200002 */
export const RETURN = '<|return|>';
/** The model wants a tool called: a decode-time stop; ends assistant tool-call messages in prompts. id 200012 */
export const CALL = '<|call|>';
/** The tokenizer's end-of-text token, also listed as an EOS id in gpt-oss generation_config. id 199999 */
export const END_OF_TEXT = '<|endoftext|>';
