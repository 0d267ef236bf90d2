import { chown, lstat, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  deriveAddresses,
  prepareIpcEndpoints,
  prepareSocketDir,
  removeOwnSocketFiles,
  removeStaleSocket,
  statBoundSocket,
  SUN_PATH_MAX_BYTES,
} from '../../src/engine/ipc-path.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'smg-ipc-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Leaves a real socket file behind, as a crashed gateway would (libzmq never unlinks it). */
async function staleSocketAt(path: string): Promise<void> {
  const s = new zmq.Pull({ linger: 0 });
  await s.bind(`ipc://${path}`);
  s.close();
}

describe('deriveAddresses', () => {
  it('derives the data plane from the path and the handshake from FNV', () => {
    const a = deriveAddresses('ipc:///tmp/smg-zmq/engine-0');
    expect(a.input).toBe('ipc:///tmp/smg-zmq/engine-0-in.sock');
    expect(a.output).toBe('ipc:///tmp/smg-zmq/engine-0-out.sock');
    expect(a.inputPath).toBe('/tmp/smg-zmq/engine-0-in.sock');
    expect(a.handshake).toBe('tcp://127.0.0.1:22670');
  });

  it('takes a tcp:// override', () => {
    expect(deriveAddresses('ipc:///tmp/x', 'tcp://127.0.0.1:4000').handshake).toBe('tcp://127.0.0.1:4000');
  });

  it('rejects a non-ipc URL and a non-tcp override with SMG texts', () => {
    expect(() => deriveAddresses('grpc://h:1')).toThrow("ZMQ worker URL must be ipc://<path>, got 'grpc://h:1'");
    expect(() => deriveAddresses('ipc:///tmp/x', 'ipc:///tmp/h')).toThrow(
      "zmq_handshake_address must be a tcp:// address (the engine dials a TCP handshake), got 'ipc:///tmp/h'",
    );
  });

  it('rejects a path too long for sun_path, naming the path and the limit', () => {
    const base = '/tmp/' + 'a'.repeat(SUN_PATH_MAX_BYTES - '/tmp/'.length - '-out.sock'.length);
    expect(() => deriveAddresses(`ipc://${base}`)).not.toThrow(); // exactly 107 bytes
    const long = base + 'b';
    expect(() => deriveAddresses(`ipc://${long}`)).toThrow(
      `ipc socket path ${long}-out.sock is 108 bytes long; Unix socket paths are limited to 107 bytes`,
    );
  });
});

describe('socket dir and stale sockets', () => {
  it('creates a missing dir (and parents) with mode 0700', async () => {
    const dir = join(root, 'a', 'b');
    await prepareSocketDir(dir);
    const st = await lstat(dir);
    expect(st.isDirectory()).toBe(true);
    expect(st.mode & 0o777).toBe(0o700);
  });

  it('never changes the mode of an existing dir', async () => {
    const dir = join(root, 'open');
    await mkdir(dir, { mode: 0o755 });
    await prepareSocketDir(dir);
    expect((await lstat(dir)).mode & 0o777).toBe(0o755);
  });

  it('refuses a symlinked dir without following it', async () => {
    const real = join(root, 'real');
    await mkdir(real);
    const link = join(root, 'link');
    await symlink(real, link);
    await expect(prepareSocketDir(link)).rejects.toThrow(`ipc socket dir ${link} exists but is not a directory`);
  });

  it('refuses a regular file as dir', async () => {
    const f = join(root, 'file');
    await writeFile(f, 'x');
    await expect(prepareSocketDir(f)).rejects.toThrow(`ipc socket dir ${f} exists but is not a directory`);
  });

  it.skipIf(process.geteuid?.() !== 0)('refuses a dir owned by another uid', async () => {
    const dir = join(root, 'foreign');
    await mkdir(dir);
    await chown(dir, 4242, 4242);
    await expect(prepareSocketDir(dir)).rejects.toThrow(
      `ipc socket dir ${dir} is owned by uid 4242 (expected 0); refusing to bind unauthenticated ZMQ sockets in a directory owned by another user`,
    );
  });

  it('removes a stale socket file', async () => {
    const p = join(root, 'w-in.sock');
    await staleSocketAt(p);
    expect((await lstat(p)).isSocket()).toBe(true);
    await removeStaleSocket(p);
    await expect(lstat(p)).rejects.toMatchObject({ code: 'ENOENT' });
    await removeStaleSocket(p); // missing is fine
  });

  it('refuses to unlink a regular file at a socket path', async () => {
    const p = join(root, 'w-out.sock');
    await writeFile(p, 'precious');
    await expect(removeStaleSocket(p)).rejects.toThrow(
      `ipc socket path ${p} exists but is not a socket; refusing to unlink`,
    );
    expect((await lstat(p)).isFile()).toBe(true);
  });

  it('prepareIpcEndpoints: creates the dir and clears both stale sockets', async () => {
    const dir = join(root, 'sock');
    const a = deriveAddresses(`ipc://${dir}/engine-1`);
    await prepareSocketDir(dir);
    await staleSocketAt(a.inputPath);
    await staleSocketAt(a.outputPath);
    await prepareIpcEndpoints(a);
    await expect(lstat(a.inputPath)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(lstat(a.outputPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('removeOwnSocketFiles leaves a file that another binder replaced', async () => {
    const p = join(root, 'mine.sock');
    await staleSocketAt(p);
    const mine = await statBoundSocket(p);
    await removeStaleSocket(p);
    await staleSocketAt(p); // someone else bound the path after us: new inode
    await removeOwnSocketFiles([mine]);
    expect((await lstat(p)).isSocket()).toBe(true);
    await removeOwnSocketFiles([await statBoundSocket(p)]);
    await expect(lstat(p)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
