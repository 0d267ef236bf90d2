/**
 * loadTokenizer: a local directory (or a path to its tokenizer.json) or a hub model id in, a
 * ready LoadedTokenizer out, with the EOS ids and chat template the pipeline needs resolved once.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { resolveChatTemplate } from '../chat-template-source.js';
import { resolveEosIds } from '../eos.js';
import { TokenizerLoadError } from './errors.js';
import { HfTokenizer } from './hf-tokenizer.js';
import { looksLikeHubId, resolveHubSnapshot } from './hub.js';
import { resolveSpecialTokens } from './special-tokens.js';
import type { LoadedTokenizer, LoadTokenizerOptions } from './types.js';

type Json = Record<string, unknown>;

async function localDirectory(source: string): Promise<string | null> {
  try {
    const info = await stat(source);
    if (info.isDirectory()) return source;
    if (info.isFile() && basename(source) === 'tokenizer.json') return dirname(source);
  } catch {
    // Not on disk: may still be a hub id.
  }
  return null;
}

/** Optional files: absent → null. A corrupt one is reported and treated as absent (§5.4). */
async function readOptionalJson(path: string, warn: (msg: string) => void): Promise<Json | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Json;
    warn(`${path} is not a JSON object; ignored`);
  } catch (err) {
    warn(`${path} is not valid JSON (${(err as Error).message}); ignored`);
  }
  return null;
}

export async function loadTokenizer(
  source: string,
  opts: LoadTokenizerOptions & { onWarning?: (message: string) => void } = {},
): Promise<LoadedTokenizer> {
  const warn = opts.onWarning ?? (() => {});
  let directory = await localDirectory(source);
  if (directory === null) {
    if (!looksLikeHubId(source)) {
      throw new TokenizerLoadError(`tokenizer source ${source} is neither a directory nor a hub model id`);
    }
    directory = await resolveHubSnapshot(source, opts);
  }

  const tokenizerPath = join(directory, 'tokenizer.json');
  let tokenizerJson: unknown;
  try {
    tokenizerJson = JSON.parse(await readFile(tokenizerPath, 'utf8'));
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    throw new TokenizerLoadError(`cannot load ${tokenizerPath} for ${source}: ${reason}`);
  }

  const [tokenizerConfig, modelConfig, generationConfig, specialTokensMap] = await Promise.all(
    ['tokenizer_config.json', 'config.json', 'generation_config.json', 'special_tokens_map.json'].map((f) =>
      readOptionalJson(join(directory, f), warn),
    ),
  );

  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokenizerJson as object, tokenizerConfig ?? {});
  } catch (err) {
    throw new TokenizerLoadError(`unsupported tokenizer in ${tokenizerPath}: ${(err as Error).message}`);
  }

  const added = new Set([...tokenizer.get_added_tokens_decoder().values()].map((t) => t.content));
  const special = resolveSpecialTokens(tokenizerConfig, specialTokensMap, (t) => added.has(t));
  const eos = resolveEosIds({
    config: modelConfig,
    generationConfig,
    tokenizerEosId: special.eos === null ? null : (tokenizer.token_to_id(special.eos) ?? null),
  });
  const template = await resolveChatTemplate(directory, tokenizerConfig, opts.chatTemplate);

  return new HfTokenizer({
    source,
    directory,
    tokenizer,
    tokenizerConfig,
    modelConfig,
    generationConfig,
    special,
    eos,
    template,
  });
}
