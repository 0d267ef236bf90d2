// Start-up status display (brief item 7; ecosystem §1.8 ora guard). No §3 behaviour covers it:
// tests the spinner guard (TTY, columns > 0, no CI) and both the plain-line and spinner paths.
import { describe, expect, it } from 'vitest';
import { createStartupDisplay, spinnerEnabled, type SpinnerLike } from '../../src/launcher/startup-display.js';

class FakeSpinner implements SpinnerLike {
  calls: string[] = [];
  isSpinning = false;
  private _text = '';
  get text(): string {
    return this._text;
  }
  set text(t: string) {
    this._text = t;
    this.calls.push(`text:${t}`);
  }
  start(t?: string) {
    this.isSpinning = true;
    this._text = t ?? this._text;
    this.calls.push(`start:${t}`);
  }
  succeed(t?: string) {
    this.isSpinning = false;
    this.calls.push(`succeed:${t}`);
  }
  fail(t?: string) {
    this.isSpinning = false;
    this.calls.push(`fail:${t}`);
  }
  info(t?: string) {
    this.isSpinning = false;
    this.calls.push(`info:${t}`);
  }
  stop() {
    this.isSpinning = false;
    this.calls.push('stop');
  }
}

const tty = { isTTY: true, columns: 80 } as unknown as NodeJS.WriteStream;

describe('spinnerEnabled', () => {
  it.each([
    [{ isTTY: true, columns: 80 }, {}, true],
    [{ isTTY: false, columns: 80 }, {}, false],
    [{ columns: 80 }, {}, false],
    [{ isTTY: true, columns: 0 }, {}, false], // ora would divide by zero and flood the terminal
    [{ isTTY: true }, {}, false],
    [{ isTTY: true, columns: 80 }, { CI: 'true' }, false],
  ])('%o with env %o → %s', (stream, env, want) => {
    expect(spinnerEnabled(stream, env)).toBe(want);
  });
});

describe('createStartupDisplay', () => {
  it('prints plain lines when the spinner is disabled', () => {
    const lines: string[] = [];
    const d = createStartupDisplay({ log: (l) => lines.push(l), stream: { isTTY: false } as NodeJS.WriteStream, env: {} });
    d.launching(0, 'ipc:///tmp/smg-zmq/engine-31000');
    d.gatewayReady('http://127.0.0.1:8080');
    d.handshakeDone(0, 4096);
    d.failed(1, 'exited with code 1');
    d.stop();
    expect(lines).toEqual([
      'engine-0: launching, waiting for handshake (ipc:///tmp/smg-zmq/engine-31000)',
      'Gateway listening on http://127.0.0.1:8080',
      'engine-0: handshake done (context length 4096)',
      'engine-1: exited with code 1',
    ]);
  });

  it('never builds a spinner under CI even on a TTY', () => {
    let built = false;
    createStartupDisplay({
      log: () => {},
      stream: tty,
      env: { CI: '1' },
      createSpinner: () => {
        built = true;
        return new FakeSpinner();
      },
    });
    expect(built).toBe(false);
  });

  it('on a TTY, shows pending engines in one spinner and persists each as it finishes', () => {
    const sp = new FakeSpinner();
    const lines: string[] = [];
    const d = createStartupDisplay({ log: (l) => lines.push(l), stream: tty, env: {}, createSpinner: () => sp });
    d.launching(0, 'ipc://a');
    d.launching(1, 'ipc://b');
    d.gatewayReady('http://0.0.0.0:30000');
    d.handshakeDone(0, 8192);
    d.handshakeDone(1);
    d.stop();
    const a = 'engine-0: launching, waiting for handshake (ipc://a)';
    const b = 'engine-1: launching, waiting for handshake (ipc://b)';
    expect(sp.calls).toEqual([
      `start:${a}`,
      `text:${a}\n${b}`,
      'info:Gateway listening on http://0.0.0.0:30000',
      `start:${a}\n${b}`,
      'succeed:engine-0: handshake done (context length 8192)',
      `start:${b}`,
      'succeed:engine-1: handshake done',
    ]);
    expect(lines).toEqual([]);
  });

  it('stop() halts a running spinner once and later updates are ignored', () => {
    const sp = new FakeSpinner();
    const d = createStartupDisplay({ log: () => {}, stream: tty, env: {}, createSpinner: () => sp });
    d.launching(0, 'ipc://a');
    d.stop();
    d.stop();
    d.handshakeDone(0, 1);
    expect(sp.calls).toEqual(['start:engine-0: launching, waiting for handshake (ipc://a)', 'stop']);
  });
});
