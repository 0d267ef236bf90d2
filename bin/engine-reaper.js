#!/usr/bin/env node
// The engine reaper of `smg serve` (src/launcher/reaper.ts starts one per engine process group).
// Plain Node with built-ins only, so it starts in tens of milliseconds and needs nothing
// installed. It runs in its own session, so neither a terminal's signals nor a `kill -<pgid>` of
// the serve's job reach it, and it holds one pipe from the gateway process: its stdin.
//
// - stdin closes (the gateway process is gone, however it died — SIGKILL included): stop the
//   engine's process group (SIGTERM, SIGKILL after the grace), remove the worker's socket files
//   if nothing listens on them any more, remove the serve's pid file if it still names that
//   serve, exit.
// - the engine's process group is gone (it exited, or serve stopped it): exit at once, touching
//   nothing; a live serve owns the files and may restart the engine.
//
// argv[2] is a JSON object: { pgid, servePid, label, url, graceMs, sockets: [path], claim: path|null }.
import { lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { connect } from 'node:net';

const spec = JSON.parse(process.argv[2] ?? '{}');
const pgid = Number(spec.pgid);
if (!Number.isInteger(pgid) || pgid <= 1) process.exit(2);

const POLL_MS = 200;
const AFTER_KILL_MS = 5000;

// Writing to a pipe whose reader is gone must not kill the reaper before it has done its job.
process.stderr.on('error', () => {});
process.stdin.on('error', () => {});
// Own session, no terminal; but a stray SIGINT/SIGHUP must not make it give up its engine.
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});

function log(level, message) {
  try {
    process.stderr.write(`${new Date().toISOString()} ${level.padEnd(5)} smg engine reaper: ${message}\n`);
  } catch {
    // nowhere to report to
  }
}

function groupExists() {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function signalGroup(signal) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function goneWithin(ms) {
  const end = Date.now() + ms;
  while (groupExists()) {
    if (Date.now() >= end) return false;
    await sleep(50);
  }
  return true;
}

/** 'stale' when nothing accepts on the unix socket at `path` any more. */
function socketState(path) {
  return new Promise((resolve) => {
    const sock = connect(path);
    const timer = setTimeout(() => finish('live'), 1000);
    function finish(state) {
      clearTimeout(timer);
      sock.destroy();
      resolve(state);
    }
    sock.once('connect', () => finish('live'));
    sock.once('error', (err) => finish(err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET' ? 'stale' : err.code === 'ENOENT' ? 'missing' : 'live'));
  });
}

async function removeStaleSocket(path) {
  try {
    if (!lstatSync(path).isSocket()) return;
  } catch {
    return;
  }
  if ((await socketState(path)) !== 'stale') return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function removeClaim(path) {
  try {
    const claim = JSON.parse(readFileSync(path, 'utf8'));
    if (claim?.serve?.pid === spec.servePid) unlinkSync(path);
  } catch {
    // missing, or not ours any more
  }
}

let stopping = false;

async function gatewayGone() {
  if (stopping) return;
  stopping = true;
  clearInterval(watch);
  if (groupExists()) {
    log('WARN', `smg serve (pid ${spec.servePid}) is gone; stopping ${spec.label} (process group ${pgid}, ${spec.url})`);
    signalGroup('SIGTERM');
    if (!(await goneWithin(Number(spec.graceMs) || 10_000))) {
      log('WARN', `${spec.label} (process group ${pgid}) did not exit in time; sending SIGKILL`);
      signalGroup('SIGKILL');
      await goneWithin(AFTER_KILL_MS);
    }
  }
  for (const path of spec.sockets ?? []) await removeStaleSocket(path);
  if (spec.claim) removeClaim(spec.claim);
  process.exit(0);
}

const watch = setInterval(() => {
  if (!stopping && !groupExists()) process.exit(0);
}, POLL_MS);

process.stdin.on('end', gatewayGone);
process.stdin.on('close', gatewayGone);
// Nothing is ever written; reading keeps the pipe flowing so 'end' is seen.
process.stdin.resume();
