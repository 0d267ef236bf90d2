/**
 * Where a tool parser puts its output while it scans: adjacent text pieces and adjacent argument
 * pieces of the same call are merged, so one `push()` returns few items; call indices are handed
 * out here so every parser numbers calls the same way (0, 1, 2… in the order they start).
 */
import type { ParsedItem } from '../types.js';

export class ItemSink {
  private items: ParsedItem[] = [];
  private calls = 0;

  text(s: string): void {
    if (s.length === 0) return;
    const last = this.items.length > 0 ? this.items[this.items.length - 1] : undefined;
    if (last !== undefined && last.kind === 'text') last.text += s;
    else this.add({ kind: 'text', text: s });
  }

  /** A call begins; returns its index. */
  startCall(name: string): number {
    const tool = this.calls++;
    this.add({ kind: 'tool_start', tool, name });
    return tool;
  }

  args(tool: number, s: string): void {
    if (s.length === 0) return;
    const last = this.items.length > 0 ? this.items[this.items.length - 1] : undefined;
    if (last !== undefined && last.kind === 'tool_args' && last.tool === tool) last.text += s;
    else this.add({ kind: 'tool_args', tool, text: s });
  }

  /** Everything collected since the last take. */
  take(): ParsedItem[] {
    const out = this.items;
    if (out.length > 0) this.items = [];
    return out.length > 0 ? out : [];
  }

  private add(item: ParsedItem): void {
    this.items.push(item);
  }
}
