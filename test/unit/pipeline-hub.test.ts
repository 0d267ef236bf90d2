import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../../src/pipeline/tokenizer/index.js';

const TINY = join(import.meta.dirname, '../fixtures/tiny-tokenizer');
const SHA = '0123456789abcdef0123456789abcdef01234567';
const MIRROR_SHA = 'fedcba9876543210fedcba9876543210fedcba98';
const TOKEN = 'hf_test_secret';

interface Repo {
  files: Record<string, string>;
  /** Whether /api/models answers (a plain mirror may only serve /resolve). */
  api: boolean;
  sha: string;
}

async function tinyFiles(): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const f of await readdir(TINY)) files[f] = await readFile(join(TINY, f), 'utf8');
  return files;
}

describe('hub download into the HF cache layout', () => {
  let server: Server;
  let endpoint: string;
  let hfHome: string;
  let repos: Record<string, Repo>;
  let requests: Array<{ url: string; auth: string | undefined }>;

  const authorized = (req: IncomingMessage): boolean => req.headers.authorization === `Bearer ${TOKEN}`;

  beforeAll(async () => {
    const files = await tinyFiles();
    const withoutConfig = { ...files };
    delete withoutConfig['config.json'];
    repos = {
      'org/tiny': {
        api: true,
        sha: SHA,
        files: { ...files, 'extra.jinja': 'EXTRA {{ messages[0].content }}', 'sub/nested.jinja': 'NESTED', 'model.safetensors': 'weights' },
      },
      'org/mirror': { api: false, sha: MIRROR_SHA, files: withoutConfig },
      'org/no-tokenizer': { api: true, sha: SHA, files: { 'config.json': '{}' } },
      'org/private': { api: true, sha: SHA, files },
    };
    server = createServer((req, res) => {
      const url = decodeURIComponent(req.url ?? '');
      requests.push({ url, auth: req.headers.authorization });
      if (!authorized(req)) {
        res.writeHead(401).end('unauthorized');
        return;
      }
      const api = /^\/api\/models\/(.+)\/revision\/([^/]+)$/.exec(url);
      if (api) {
        const repo = repos[api[1]];
        if (!repo || !repo.api) return void res.writeHead(404).end();
        const body = { id: api[1], sha: repo.sha, siblings: Object.keys(repo.files).map((rfilename) => ({ rfilename })) };
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      }
      const file = /^\/(.+?\/.+?)\/resolve\/([^/]+)\/(.+)$/.exec(url);
      const repo = file ? repos[file[1]] : undefined;
      const content = file && repo ? repo.files[file[3]] : undefined;
      if (content === undefined) return void res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end();
      res.writeHead(200, { 'x-repo-commit': repo!.sha }).end(content);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    hfHome = await mkdtemp(join(tmpdir(), 'smg-hf-'));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(hfHome, { recursive: true, force: true });
  });

  beforeEach(() => {
    requests = [];
  });

  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    HF_HOME: hfHome,
    HF_ENDPOINT: endpoint,
    HF_TOKEN: TOKEN,
    ...extra,
  });

  it('downloads the wanted files with the bearer token and loads them', async () => {
    const downloaded: string[] = [];
    const tok = await loadTokenizer('org/tiny', { env: env(), onDownload: (f) => downloaded.push(f) });
    const snapshot = join(hfHome, 'hub', 'models--org--tiny', 'snapshots', SHA);
    expect(tok.directory).toBe(snapshot);
    expect(await readFile(join(hfHome, 'hub', 'models--org--tiny', 'refs', 'main'), 'utf8')).toBe(SHA);
    expect((await readdir(snapshot)).sort()).toEqual(
      ['config.json', 'extra.jinja', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json'].sort(),
    );
    expect(downloaded.sort()).toEqual((await readdir(snapshot)).sort());
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((r) => r.auth === `Bearer ${TOKEN}`)).toBe(true);
    expect(requests.some((r) => r.url.includes('model.safetensors') || r.url.includes('nested'))).toBe(false);
    // A top-level *.jinja outranks tokenizer_config.json's template (§4.1).
    expect(tok.chatTemplate).toBe('EXTRA {{ messages[0].content }}');
    expect(tok.eosTokenIds).toEqual([268, 266]);
    expect(tok.encode('Hi the')).toEqual([265, 258]);
  });

  it('reuses the cached snapshot without touching the network', async () => {
    const tok = await loadTokenizer('org/tiny', { env: env({ HF_ENDPOINT: 'http://127.0.0.1:9' }) });
    expect(requests).toEqual([]);
    expect(tok.encode('Hi')).toEqual([265]);
    const byCommit = await loadTokenizer('org/tiny', { env: env({ HF_HUB_OFFLINE: '1' }), revision: SHA });
    expect(byCommit.directory).toContain(SHA);
  });

  it('explains a 401 without a token', async () => {
    await expect(loadTokenizer('org/private', { env: env({ HF_TOKEN: '' }) })).rejects.toThrow(/HTTP 401.*set HF_TOKEN/);
    expect(requests[0].auth).toBeUndefined();
  });

  it('rejects a repo without tokenizer.json', async () => {
    await expect(loadTokenizer('org/no-tokenizer', { env: env() })).rejects.toThrow(/has no tokenizer\.json/);
  });

  it('falls back to plain resolve URLs when the model API is missing', async () => {
    const tok = await loadTokenizer('org/mirror', { env: env() });
    expect(tok.directory).toBe(join(hfHome, 'hub', 'models--org--mirror', 'snapshots', MIRROR_SHA));
    expect(tok.modelConfig).toBeNull(); // config.json was a 404, which is fine
    expect(tok.eosTokenIds).toEqual([266, 268]);
  });

  it('fails clearly when tokenizer.json is missing on a mirror, or offline with an empty cache', async () => {
    await expect(loadTokenizer('org/absent', { env: env() })).rejects.toThrow(/tokenizer\.json not found/);
    await expect(loadTokenizer('org/other', { env: env({ HF_HUB_OFFLINE: '1' }) })).rejects.toThrow(/HF_HUB_OFFLINE/);
  });

  it('honours HF_HUB_CACHE over HF_HOME', async () => {
    const cache = join(hfHome, 'custom-cache');
    const tok = await loadTokenizer('org/tiny', { env: env({ HF_HUB_CACHE: cache }) });
    expect(tok.directory).toBe(join(cache, 'models--org--tiny', 'snapshots', SHA));
  });
});
