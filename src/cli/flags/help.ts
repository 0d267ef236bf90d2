/**
 * Help text for flag rows, shared by `smg launch --help` and `smg serve --help`: each flag as its
 * spellings and placeholder, then its description, choices and default, wrapped under it.
 */
import { defaultGatewayConfig } from '../../gateway/config.js';
import { ROUTER_PREFIX, spellings, type FlagDef, type FlagScope } from './flag-def.js';

const WIDTH = 100;
const NAME_INDENT = '  ';
const TEXT_INDENT = '      ';

/** Greedy word wrap; a word longer than the line is kept whole. */
export function wrap(text: string, indent: string, width = WIDTH): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line.length + word.length + 1 > width && line.trim() !== '') {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += `${word} `;
  }
  if (line.trim() !== '') lines.push(line.trimEnd());
  return lines;
}

function metavar(def: FlagDef): string {
  if (def.type === 'bool') return '';
  if (def.metavar !== undefined) return ` ${def.metavar}`;
  if (def.type === 'list') return ' <VALUE>...';
  return def.type === 'int' || def.type === 'number' ? ' <N>' : ' <VALUE>';
}

function defaultText(def: FlagDef): string | undefined {
  if (def.defaultText !== undefined) return def.defaultText;
  if (def.default !== undefined) return String(def.default);
  if (def.key === undefined) return undefined;
  const d: unknown = defaultGatewayConfig()[def.key];
  if (d === null || d === false || (Array.isArray(d) && d.length === 0)) return undefined;
  return String(d);
}

/** One flag: `  --name, --alias <V>` then the wrapped description. */
export function flagHelp(def: FlagDef, scope: FlagScope): string[] {
  const prefix = scope === 'router' ? ROUTER_PREFIX : '';
  const text = scope === 'router' ? (def.routerDescribe ?? def.describe) : def.describe;
  const choices = def.choices && def.metavar === undefined ? ` (one of: ${def.choices.join(', ')})` : '';
  const dflt = defaultText(def);
  // Short spellings first, the usual order in help (`-h, --help`).
  const names = spellings(def, prefix).sort((a, b) => Number(a.startsWith('--')) - Number(b.startsWith('--')));
  return [
    `${NAME_INDENT}${names.join(', ')}${metavar(def)}`,
    ...wrap(`${text}${choices}${dflt === undefined ? '' : ` [default: ${dflt}]`}`, TEXT_INDENT),
  ];
}

/** Rows under `<Group>:` headings, groups in order of first appearance. */
export function groupedFlagHelp(defs: readonly FlagDef[], scope: FlagScope, heading = (g: string) => `${g}:`): string[] {
  const out: string[] = [];
  for (const group of [...new Set(defs.map((d) => d.group))]) {
    out.push('', heading(group));
    for (const def of defs.filter((d) => d.group === group)) out.push(...flagHelp(def, scope));
  }
  return out;
}
