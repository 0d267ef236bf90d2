/**
 * The last lines an engine wrote to stderr, kept while they are passed on to the terminal, so a
 * start-up failure can be reported with the engine's own words (`No module named 'vllm'`, a CUDA
 * error) instead of only an exit code. Bounded by bytes, not lines: one huge line cannot grow it.
 */
export const TAIL_MAX_LINES = 12;
const TAIL_MAX_CHARS = 8192;

export class OutputTail {
  private text = '';

  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > TAIL_MAX_CHARS * 2) this.text = this.text.slice(-TAIL_MAX_CHARS);
  }

  /** Up to `max` last non-blank lines, oldest first, carriage-return progress bars resolved. */
  lines(max = TAIL_MAX_LINES): string[] {
    const lines = this.text
      .slice(-TAIL_MAX_CHARS)
      .split('\n')
      .map((l) => {
        const line = l.replace(/\r+$/, '');
        return line.slice(line.lastIndexOf('\r') + 1).trimEnd();
      })
      .filter((l) => l.trim() !== '');
    return lines.slice(-max);
  }
}
