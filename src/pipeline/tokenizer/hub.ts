/**
 * Fetches a model's tokenizer files from the Hugging Face hub into the cache layout every HF tool
 * shares (`$HF_HUB_CACHE/models--org--name/{refs,snapshots}`), so a model already pulled by vLLM or
 * huggingface-cli is reused and ours is reusable by them. A cached snapshot is used without any
 * network access: a gateway restart must not depend on the hub being reachable.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { TokenizerLoadError } from './errors.js';

/** Files the gateway reads (request-pipeline.md §2.4), minus formats it cannot load (vocab.json, *.model…). */
const WANTED = [
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'config.json',
  'generation_config.json',
  'chat_template.json',
  'chat_template.jinja',
];
const REQUIRED = 'tokenizer.json';
const COMMIT = /^[0-9a-f]{40}$/;

export interface HubOptions {
  revision?: string;
  env?: NodeJS.ProcessEnv;
  downloadTimeoutMs?: number;
  onDownload?: (file: string, bytes: number) => void;
}

/** Loose check for `name` or `org/name`; anything else is treated as a (missing) local path. */
export function looksLikeHubId(source: string): boolean {
  return /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/.test(source) && !source.includes('..');
}

function hubCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  return join(env.HF_HOME || join(homedir(), '.cache', 'huggingface'), 'hub');
}

function isTruthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function cachedSnapshot(repoDir: string, revision: string): Promise<string | null> {
  let commit = revision;
  if (!COMMIT.test(revision)) {
    try {
      commit = (await readFile(join(repoDir, 'refs', revision), 'utf8')).trim();
    } catch {
      return null;
    }
  }
  const dir = join(repoDir, 'snapshots', commit);
  return (await exists(join(dir, REQUIRED))) ? dir : null;
}

interface RepoInfo {
  sha: string | null;
  files: string[] | null;
}

class HubClient {
  private readonly endpoint: string;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly id: string,
    private readonly revision: string,
    env: NodeJS.ProcessEnv,
    private readonly timeoutMs: number,
  ) {
    this.endpoint = (env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, '');
    const token = env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN;
    this.headers = token ? { authorization: `Bearer ${token}` } : {};
  }

  private async get(url: string): Promise<Response> {
    try {
      return await fetch(url, { headers: this.headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const cause = (err as Error).cause as Error | undefined;
      throw new TokenizerLoadError(
        `cannot reach the hub for ${this.id} (${url}): ${cause?.message ?? (err as Error).message}`,
      );
    }
  }

  private denied(status: number, what: string): TokenizerLoadError {
    const hint = this.headers.authorization ? 'the HF_TOKEN has no access' : 'set HF_TOKEN for gated or private models';
    return new TokenizerLoadError(`hub refused ${what} for ${this.id} (HTTP ${status}); ${hint}`);
  }

  /** Commit and file list; null fields when the endpoint (e.g. a plain mirror) has no model API. */
  async info(): Promise<RepoInfo> {
    const res = await this.get(`${this.endpoint}/api/models/${this.id}/revision/${encodeURIComponent(this.revision)}`);
    if (res.status === 401 || res.status === 403) throw this.denied(res.status, 'model info');
    if (!res.ok) {
      await res.body?.cancel();
      return { sha: null, files: null };
    }
    const body = (await res.json()) as { sha?: unknown; siblings?: Array<{ rfilename?: unknown }> };
    const files = Array.isArray(body.siblings)
      ? body.siblings.map((s) => s.rfilename).filter((f): f is string => typeof f === 'string')
      : null;
    return { sha: typeof body.sha === 'string' ? body.sha : null, files };
  }

  /** File bytes and the commit the hub resolved to; null when the file does not exist (404). */
  async file(name: string): Promise<{ data: Buffer; commit: string | null } | null> {
    const url = `${this.endpoint}/${this.id}/resolve/${encodeURIComponent(this.revision)}/${name}`;
    const res = await this.get(url);
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (res.status === 401 || res.status === 403) throw this.denied(res.status, name);
    if (!res.ok) throw new TokenizerLoadError(`downloading ${url} failed: HTTP ${res.status}`);
    return { data: Buffer.from(await res.arrayBuffer()), commit: res.headers.get('x-repo-commit') };
  }
}

/** Returns the local snapshot directory holding the tokenizer files of hub model `id`. */
export async function resolveHubSnapshot(id: string, opts: HubOptions = {}): Promise<string> {
  const env = opts.env ?? process.env;
  const revision = opts.revision ?? 'main';
  const repoDir = join(hubCacheDir(env), `models--${id.replaceAll('/', '--')}`);

  const cached = await cachedSnapshot(repoDir, revision);
  if (cached) return cached;
  if (isTruthy(env.HF_HUB_OFFLINE)) {
    throw new TokenizerLoadError(`${id}@${revision} is not in the hub cache (${repoDir}) and HF_HUB_OFFLINE is set`);
  }

  const client = new HubClient(id, revision, env, opts.downloadTimeoutMs ?? 120_000);
  const info = await client.info();
  let names = WANTED;
  if (info.files) {
    if (!info.files.includes(REQUIRED)) {
      throw new TokenizerLoadError(
        `${id}@${revision} has no ${REQUIRED}; only the Hugging Face tokenizers JSON format is supported`,
      );
    }
    // Top-level *.jinja files are template candidates (§4.1); nested ones are not.
    names = info.files.filter((f) => WANTED.includes(f) || (f.endsWith('.jinja') && !f.includes('/')));
  }

  const results = await Promise.all(names.map(async (name) => ({ name, got: await client.file(name) })));
  const tokenizerFile = results.find((r) => r.name === REQUIRED)?.got;
  if (!tokenizerFile) {
    throw new TokenizerLoadError(`${id}@${revision}: ${REQUIRED} not found on the hub (HTTP 404)`);
  }

  const commit = info.sha ?? tokenizerFile.commit ?? revision;
  const snapshot = join(repoDir, 'snapshots', commit);
  await mkdir(snapshot, { recursive: true });
  // Write-then-rename so a crash or a concurrent loader never sees a half-written file, and
  // tokenizer.json last because its presence is what marks a snapshot as complete.
  const tag = randomBytes(6).toString('hex');
  const ordered = [...results.filter((r) => r.name !== REQUIRED), ...results.filter((r) => r.name === REQUIRED)];
  for (const { name, got } of ordered) {
    if (!got) continue;
    const tmp = join(snapshot, `.${name}.${tag}.incomplete`);
    try {
      await writeFile(tmp, got.data);
      await rename(tmp, join(snapshot, name));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    opts.onDownload?.(name, got.data.length);
  }
  if (commit !== revision) {
    const refPath = join(repoDir, 'refs', revision);
    await mkdir(join(refPath, '..'), { recursive: true });
    await writeFile(refPath, commit);
  }
  return snapshot;
}
