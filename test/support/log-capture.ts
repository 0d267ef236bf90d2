/** A real logger whose plain-text lines land in an array, for asserting exact log texts. */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/util/logger.js';

export interface CapturedLogger {
  logger: Logger;
  lines: string[];
  /** Lines containing `text`. */
  find(text: string): string[];
}

export function captureLogger(level = 'debug'): CapturedLogger {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l !== '') lines.push(l);
      cb();
    },
  });
  return {
    logger: createLogger({ level, destination }),
    lines,
    find: (text) => lines.filter((l) => l.includes(text)),
  };
}
