/**
 * Where a model's chat template comes from (request-pipeline.md §4.1), first hit wins:
 * explicit template → chat_template.json → chat_template.jinja → any other *.jinja →
 * tokenizer_config.json `chat_template` when it is a string.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

export interface ChatTemplateSource {
  source: string;
  /** File path, `tokenizer_config.json`, or `inline` (explicit template text). */
  origin: string;
}

export class ChatTemplateLoadError extends Error {
  override name = 'ChatTemplateLoadError';
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * `.json` files hold a JSON string or `{chat_template: string}`. Other files are Jinja text, trimmed,
 * with literal `\n` turned into newlines as SMG does (templates pasted from JSON keep the escapes);
 * an escaped backslash before the n is left alone so string literals spelling `\\n` survive.
 */
async function readChatTemplateFile(path: string): Promise<string> {
  const text = await readFile(path, 'utf8');
  if (!path.endsWith('.json')) return text.trim().replace(/(?<!\\)\\n/g, '\n');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ChatTemplateLoadError(`${basename(path)} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed === 'string') return parsed;
  const inner = (parsed as { chat_template?: unknown } | null)?.chat_template;
  if (typeof inner === 'string') return inner;
  throw new ChatTemplateLoadError(`${basename(path)} does not contain a valid template`);
}

/**
 * An explicit template is a file path; when no such file exists but the text looks like Jinja it is
 * taken as the template itself (vLLM's `--chat-template` accepts both).
 */
async function explicitTemplate(value: string): Promise<ChatTemplateSource> {
  if (await isFile(value)) return { source: await readChatTemplateFile(value), origin: value };
  if (value.includes('{{') || value.includes('{%')) return { source: value, origin: 'inline' };
  throw new ChatTemplateLoadError(`chat template file not found: ${value}`);
}

export async function resolveChatTemplate(
  dir: string,
  tokenizerConfig: Record<string, unknown> | null,
  explicit?: string,
): Promise<ChatTemplateSource | null> {
  if (explicit !== undefined && explicit !== '') return explicitTemplate(explicit);

  let entries: string[] = [];
  try {
    entries = await readdir(dir);
  } catch {
    // An unreadable directory simply has no template files; tokenizer.json loading reports the cause.
  }
  const otherJinja = entries.filter((f) => f.endsWith('.jinja') && f !== 'chat_template.jinja').sort();
  const candidates = ['chat_template.json', 'chat_template.jinja', ...otherJinja];
  for (const name of candidates) {
    const path = join(dir, name);
    if (await isFile(path)) return { source: await readChatTemplateFile(path), origin: path };
  }

  // The list-of-named-templates form (`[{name, template}]`) is deliberately ignored, as SMG does.
  const fromConfig = tokenizerConfig?.chat_template;
  if (typeof fromConfig === 'string') return { source: fromConfig, origin: 'tokenizer_config.json' };
  return null;
}
