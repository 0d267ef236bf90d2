/**
 * loadTokenizer: a local directory (or a path to its tokenizer.json) or a hub model id in, a
 * ready LoadedTokenizer out, with the EOS ids and chat template the pipeline needs resolved once.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { resolveChatTemplate } from '../chat-prompt/chat-template-source.js';
import { resolveEosIds } from '../eos.js';
import { safeCutTokens } from './cut-tokens.js';
import { TokenizerLoadError } from './errors.js';
import { verifiedFastEncoder } from './fast-bpe/index.js';
import { HfTokenizer } from './hf-tokenizer.js';
import { looksLikeHubId, resolveHubSnapshot } from './hub.js';
import { slimLibTokenizer } from './slim-lib.js';
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

async function readTokenizerJson(directory: string, source: string): Promise<unknown> {
  const tokenizerPath = join(directory, 'tokenizer.json');
  try {
    return JSON.parse(await readFile(tokenizerPath, 'utf8'));
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    throw new TokenizerLoadError(`cannot load ${tokenizerPath} for ${source}: ${reason}`);
  }
}

function constructLibTokenizer(directory: string, tokenizerJson: unknown, tokenizerConfig: Json | null): Tokenizer {
  try {
    return new Tokenizer(tokenizerJson as object, tokenizerConfig ?? {});
  } catch (err) {
    throw new TokenizerLoadError(`unsupported tokenizer in ${join(directory, 'tokenizer.json')}: ${(err as Error).message}`);
  }
}

/**
 * The library tokenizer of an already resolved directory, built from the same files the same way
 * as `loadTokenizer` builds it, so a second copy (a prompt worker thread's) encodes identically.
 */
export async function loadLibTokenizer(directory: string): Promise<Tokenizer> {
  const [tokenizerJson, tokenizerConfig] = await Promise.all([
    readTokenizerJson(directory, directory),
    readOptionalJson(join(directory, 'tokenizer_config.json'), () => {}),
  ]);
  return constructLibTokenizer(directory, tokenizerJson, tokenizerConfig);
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

  const tokenizerJson = await readTokenizerJson(directory, source);
  const [tokenizerConfig, modelConfig, generationConfig, specialTokensMap] = await Promise.all(
    ['tokenizer_config.json', 'config.json', 'generation_config.json', 'special_tokens_map.json'].map((f) =>
      readOptionalJson(join(directory, f), warn),
    ),
  );
  const tokenizer = constructLibTokenizer(directory, tokenizerJson, tokenizerConfig);

  const added = new Set([...tokenizer.get_added_tokens_decoder().values()].map((t) => t.content));
  const fast = verifiedFastEncoder(tokenizerJson, tokenizerConfig, (text) => tokenizer.encode(text, { add_special_tokens: false }).ids, added);
  if ('encoder' in fast) slimLibTokenizer(tokenizer, fast.encoder);
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
    cutTokens: safeCutTokens(tokenizerJson),
    fast,
  });
}
