import { chmod, chown, lstat, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  deriveAddresses,
  prepareIpcEndpoints,
  prepareSocketDir,
  removeCreatedDirs,
  removeOwnSocketFiles,
  removeStaleSocket,
  socketDirProblem,
  statBoundSocket,
  SUN_PATH_MAX_BYTES,
  type SocketDirStat,
} from '../../src/engine/ipc-path.js';
import { checkUnixSocket } from '../../src/engine/live-socket.js';

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
    await expect(prepareSocketDir(link)).rejects.toThrow(
      `ipc socket dir ${link} is a symlink; refusing to follow it (use the directory it points to, or a private directory)`,
    );
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

  it.runIf(process.geteuid?.() === 0)("never unlinks a dead socket another user owns, even as root", async () => {
    const p = join(root, 'theirs.sock');
    await staleSocketAt(p);
    await chown(p, 65534, 65534);
    await expect(removeStaleSocket(p)).rejects.toThrow(
      `ipc socket path ${p} belongs to uid 65534, not to this gateway (uid 0); refusing to unlink another user's socket (give this worker a different ipc path)`,
    );
    expect((await lstat(p)).isSocket()).toBe(true);
  });

  it('reports the directories it created, and removeCreatedDirs takes back only the empty ones', async () => {
    await mkdir(join(root, 'a'), { mode: 0o700 });
    const dir = join(root, 'a', 'b', 'c');
    const created = await prepareIpcEndpoints(deriveAddresses(`ipc://${dir}/engine-1`));
    expect(created).toEqual([dir, join(root, 'a', 'b')]);
    // An existing directory is not ours.
    expect(await prepareIpcEndpoints(deriveAddresses(`ipc://${dir}/engine-2`))).toEqual([]);
    await writeFile(join(dir, 'someone-elses'), 'x');
    await removeCreatedDirs(created);
    expect((await lstat(dir)).isDirectory()).toBe(true);
    await rm(join(dir, 'someone-elses'));
    await removeCreatedDirs(created);
    await expect(lstat(join(root, 'a', 'b'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await lstat(join(root, 'a'))).isDirectory()).toBe(true);
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

describe('socket dir permissions', () => {
  it('refuses a dir writable by group or others, naming who and the mode', async () => {
    for (const [mode, who] of [
      [0o770, 'group'],
      [0o703, 'others'],
      [0o777, 'group and others'],
    ] as const) {
      const dir = join(root, `m${mode.toString(8)}`);
      await mkdir(dir);
      await chmod(dir, mode);
      await expect(prepareSocketDir(dir)).rejects.toThrow(
        `ipc socket dir ${dir} is writable by ${who} (mode 0${mode.toString(8)}); refusing to bind unauthenticated ZMQ sockets where other users can replace them (chmod go-w ${dir}, or use a private directory)`,
      );
      expect((await lstat(dir)).mode & 0o777).toBe(mode); // never chmod'ed for the user
    }
  });

  it('refuses a world-writable sticky dir (a socket path directly in /tmp), for whoever runs it', async () => {
    const sticky = join(root, 'tmp-like');
    await mkdir(sticky);
    await chmod(sticky, 0o1777);
    const me = process.geteuid?.() ?? '<uid>';
    await expect(prepareSocketDir(sticky)).rejects.toThrow(
      `ipc socket dir ${sticky} is a world-writable sticky directory (like /tmp); refusing to bind unauthenticated ZMQ sockets directly in it (use a private subdirectory such as ${sticky}/smg-zmq-${me})`,
    );
    // /tmp itself, through the whole endpoint preparation of a worker URL.
    await expect(prepareIpcEndpoints(deriveAddresses('ipc:///tmp/smg-engine-0'))).rejects.toThrow(
      'ipc socket dir /tmp is a world-writable sticky directory (like /tmp)',
    );
  });

  it('the decision function: root gets the sticky refusal for /tmp; the owner rule comes next', () => {
    const stat = (over: Partial<SocketDirStat>): SocketDirStat => ({
      isDirectory: () => true,
      isSymbolicLink: () => false,
      uid: 0,
      mode: 0o40700,
      ...over,
    });
    expect(socketDirProblem('/tmp', stat({ mode: 0o41777 }), 0)).toBe(
      'ipc socket dir /tmp is a world-writable sticky directory (like /tmp); refusing to bind unauthenticated ZMQ sockets directly in it (use a private subdirectory such as /tmp/smg-zmq-0)',
    );
    // A non-root user hears the same about /tmp, not that root owns it.
    expect(socketDirProblem('/tmp', stat({ mode: 0o41777 }), 1000)).toMatch(/world-writable sticky directory/);
    expect(socketDirProblem('/srv/zmq', stat({ uid: 4242 }), 0)).toBe(
      'ipc socket dir /srv/zmq is owned by uid 4242 (expected 0); refusing to bind unauthenticated ZMQ sockets in a directory owned by another user',
    );
    expect(socketDirProblem('/run/smg', stat({ mode: 0o40755 }), 0)).toBeNull();
    expect(socketDirProblem('/run/smg', stat({ mode: 0o40775 }), 0)).toMatch(/is writable by group \(mode 0775\)/);
    expect(socketDirProblem('/l', stat({ isSymbolicLink: () => true, isDirectory: () => false }), 0)).toMatch(/^ipc socket dir \/l is a symlink;/);
    expect(socketDirProblem('/f', stat({ isDirectory: () => false }), 0)).toBe('ipc socket dir /f exists but is not a directory');
  });
});

describe('live sockets are never stolen', () => {
  const liveText = (p: string) =>
    `ipc socket path ${p} is live: another process (probably another gateway) is bound to it; refusing to unlink it (stop that process, or give this worker a different ipc path)`;

  it('a plain connect tells live, stale and missing apart', async () => {
    const p = join(root, 'probe.sock');
    expect(await checkUnixSocket(p)).toBe('missing');
    const srv = createServer();
    await new Promise<void>((resolve) => srv.listen(p, resolve));
    expect(await checkUnixSocket(p)).toBe('live');
    await new Promise<void>((resolve) => srv.close(() => resolve()));
    // libzmq releases a closed listener on its I/O thread a moment after close(): stale soon after.
    await staleSocketAt(p);
    const deadline = Date.now() + 5000;
    let state = await checkUnixSocket(p);
    while (state === 'live' && Date.now() < deadline) state = await checkUnixSocket(p);
    expect(state).toBe('stale');
  });

  it('refuses to unlink a socket a zeromq ROUTER or PULL is bound to; removes it once that one closed', async () => {
    for (const sock of [new zmq.Router({ linger: 0 }), new zmq.Pull({ linger: 0 })]) {
      const p = join(root, `live-${sock.constructor.name}.sock`);
      await sock.bind(`ipc://${p}`);
      try {
        await expect(removeStaleSocket(p)).rejects.toThrow(liveText(p));
        expect((await lstat(p)).isSocket()).toBe(true);
      } finally {
        sock.close();
      }
      await removeStaleSocket(p);
      await expect(lstat(p)).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('the bound socket keeps working after a refused check', async () => {
    const p = join(root, 'kept.sock');
    const pull = new zmq.Pull({ linger: 0, receiveTimeout: 5000 });
    await pull.bind(`ipc://${p}`);
    await expect(removeStaleSocket(p)).rejects.toThrow(liveText(p));
    const push = new zmq.Push({ linger: 0 });
    push.connect(`ipc://${p}`);
    await push.send('still mine');
    expect((await pull.receive()).map(String)).toEqual(['still mine']);
    push.close();
    pull.close();
  });

  it('prepareIpcEndpoints refuses a worker path whose input socket is live and touches neither file', async () => {
    const dir = join(root, 'taken');
    await prepareSocketDir(dir);
    const a = deriveAddresses(`ipc://${dir}/engine-7`);
    await staleSocketAt(a.outputPath);
    const router = new zmq.Router({ linger: 0 });
    await router.bind(a.input);
    try {
      await expect(prepareIpcEndpoints(a)).rejects.toThrow(liveText(a.inputPath));
      expect((await lstat(a.inputPath)).isSocket()).toBe(true);
      expect((await lstat(a.outputPath)).isSocket()).toBe(true);
    } finally {
      router.close();
    }
  });
});
