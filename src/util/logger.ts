import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level?: string;
  json?: boolean;
  /** Where lines go; defaults to stdout. Tests pass a stream to capture lines. */
  destination?: NodeJS.WritableStream;
  /** --log-dir: every line also goes to `<dir>/smg.<YYYY-MM-DD>` (UTC), a new file each day. */
  logDir?: string | null;
}

/**
 * SMG's --log-dir file: tracing-appender's daily rotation names files `<prefix>.<YYYY-MM-DD>`
 * with the prefix `smg` (smg-project/smg model_gateway/src/observability/logging.rs).
 */
class DailyLogFile extends Writable {
  private day = '';
  private file: WriteStream | null = null;

  constructor(private readonly dir: string) {
    super();
    mkdirSync(dir, { recursive: true });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    const day = new Date().toISOString().slice(0, 10);
    if (day !== this.day || this.file === null) {
      this.file?.end();
      this.day = day;
      this.file = createWriteStream(join(this.dir, `smg.${day}`), { flags: 'a' });
    }
    this.file.write(chunk, done);
  }

  override _final(done: (err?: Error | null) => void): void {
    if (this.file) this.file.end(done);
    else done();
  }
}

/** Writes every chunk to both streams (the terminal and the --log-dir file). */
function tee(a: NodeJS.WritableStream, b: NodeJS.WritableStream): NodeJS.WritableStream {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      a.write(chunk);
      b.write(chunk, done);
    },
  });
}

/**
 * The one logger of the process. Plain `LEVEL message key=value` lines by default (readable in a
 * terminal and in CI logs); `--log-json` switches to pino's JSON lines.
 */
export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? process.env.SMG_LOG_LEVEL ?? 'info';
  const out = opts.destination ?? process.stdout;
  const dest = opts.logDir ? tee(out, new DailyLogFile(opts.logDir)) : out;
  if (opts.json) return pino({ level, base: undefined }, dest as pino.DestinationStream);
  return pino(
    {
      level,
      base: undefined,
      timestamp: false,
      formatters: { level: (label) => ({ level: label }) },
    },
    plainLineStream(dest),
  );
}

/** Turns pino's JSON objects into `2026-11-30T04:27:29.123Z INFO message k=v` lines. */
function plainLineStream(dest: NodeJS.WritableStream): pino.DestinationStream {
  return {
    write(line: string) {
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        dest.write(line);
        return;
      }
      const { level, msg, ...rest } = rec;
      const text = String(msg ?? '');
      let out = `${new Date().toISOString()} ${String(level).toUpperCase().padEnd(5)} ${text}`;
      for (const [k, v] of Object.entries(rest)) {
        // Context the message already names (`worker=<url>` on `… worker <url> …`) is said once.
        if (typeof v === 'string' && v !== '' && text.includes(v)) continue;
        out += ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`;
      }
      dest.write(out + '\n');
    },
  };
}

/** A logger that drops everything (unit tests that do not inspect logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
