#!/usr/bin/env node
// A recording reverse proxy for capturing what an agent client sends (test/fixtures/clients/):
//
//   node scripts/record-requests.mjs <listen-port> <upstream-origin> <out.jsonl>
//
// Every request is forwarded to the upstream unchanged; one JSON line per exchange is appended to
// <out.jsonl>: method, path, the headers that shape the request (content type, protocol versions
// and betas; never authorization or api keys), the request body (parsed JSON when it is JSON),
// then the response status and its body text (a stream is recorded whole once it ends).
import { appendFileSync } from 'node:fs';
import { createServer, request } from 'node:http';

const [port, upstream, out] = process.argv.slice(2);
if (!port || !upstream || !out) {
  process.stderr.write('usage: record-requests.mjs <listen-port> <upstream-origin> <out.jsonl>\n');
  process.exit(2);
}
const KEPT_HEADERS = ['content-type', 'accept', 'anthropic-version', 'anthropic-beta', 'openai-beta', 'x-stainless-helper-method'];

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const headers = {};
    for (const h of KEPT_HEADERS) if (req.headers[h] !== undefined) headers[h] = req.headers[h];
    const url = new URL(req.url ?? '/', upstream);
    const fwdHeaders = { ...req.headers, host: url.host };
    delete fwdHeaders['content-length'];
    if (body.length > 0) fwdHeaders['content-length'] = String(body.length);
    const up = request(url, { method: req.method, headers: fwdHeaders }, (ures) => {
      res.writeHead(ures.statusCode ?? 502, ures.headers);
      const got = [];
      ures.on('data', (c) => {
        got.push(c);
        res.write(c);
      });
      ures.on('end', () => {
        res.end();
        let parsed = null;
        const text = body.toString('utf8');
        try {
          parsed = text.length > 0 ? JSON.parse(text) : null;
        } catch {
          parsed = text;
        }
        const line = { method: req.method, path: req.url, headers, body: parsed, status: ures.statusCode, response: Buffer.concat(got).toString('utf8') };
        appendFileSync(out, JSON.stringify(line) + '\n');
      });
    });
    up.on('error', (err) => {
      res.writeHead(502).end(String(err));
    });
    up.end(body);
  });
});
server.listen(Number(port), '127.0.0.1', () => process.stderr.write(`recording 127.0.0.1:${port} -> ${upstream} into ${out}\n`));
