/**
 * The functions every render starts with (setupGlobals and Environment's `namespace`), taking the
 * interpreter's argument list: positional values, then a Kwargs when keywords were given.
 */
import { fail, pyStr, pyTypeName } from './py.js';
import { Kind, Kwargs, Namespace, dictGet, dictKeys, kindOf, tagSeq } from './values.js';

/** The name → value pairs the library declares before the context (redeclaring one throws). */
export const BUILTIN_NAMES: ReadonlySet<string> = new Set([
  'namespace',
  'false',
  'true',
  'none',
  'raise_exception',
  'range',
  'strftime_now',
  'True',
  'False',
  'None',
]);

/** transformers' raise_exception(message): a TemplateError with the message. */
export function raiseException(args: unknown[]): never {
  return fail(pyStr(args[0]));
}

function rangeNumber(v: unknown): number {
  const k = kindOf(v);
  if (k === Kind.Integer || typeof v === 'boolean') return Number(v);
  return fail(`'${pyTypeName(v)}' object cannot be interpreted as an integer`);
}

/** Python's range(), capped as the sandbox caps it (MAX_RANGE = 100000). */
export function range(args: unknown[]): number[] {
  if (args.length === 0 || args.length > 3) fail(`range expected 1 to 3 arguments, got ${args.length}`);
  let start = rangeNumber(args[0]);
  let stop = args.length > 1 ? rangeNumber(args[1]) : 0;
  const step = args.length > 2 ? rangeNumber(args[2]) : 1;
  if (args.length === 1) {
    stop = start;
    start = 0;
  }
  if (step === 0) fail('range() arg 3 must not be zero');
  const out: number[] = [];
  if (step > 0) for (let i = start; i < stop; i += step) out.push(i);
  else for (let i = start; i > stop; i += step) out.push(i);
  if (out.length > 100_000) fail('Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).');
  return tagSeq(out, { kind: 'range', start, stop, step });
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function dayOfYear(d: Date): number {
  const start = new Date(d.getFullYear(), 0, 1);
  return Math.round((new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() - start.getTime()) / 86_400_000) + 1;
}

/** Week of the year with weeks starting on `firstDay` (0 = Sunday for %U, 1 = Monday for %W). */
function weekOfYear(d: Date, firstDay: number): number {
  const yday = dayOfYear(d) - 1;
  const wday = (d.getDay() - firstDay + 7) % 7;
  return Math.floor((yday + 7 - wday) / 7);
}

/** ISO 8601 week-numbering year and week (%G, %V). */
function isoWeek(d: Date): [number, number] {
  const t = new Date(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day);
  const yearStart = new Date(Date.UTC(t.getUTCFullYear(), 0, 1));
  return [t.getUTCFullYear(), Math.ceil(((t.getTime() - yearStart.getTime()) / 86_400_000 + 1) / 7)];
}

/**
 * Python's datetime.strftime on glibc, in the C locale and local time: every directive
 * (%a %A %b %B %c %C %d %D %e %F %G %g %H %I %j %k %l %m %M %n %p %P %r %R %s %S %t %T %u %U
 * %V %w %W %x %X %y %Y %%; %z and %Z are empty for the naive datetime transformers formats) and
 * glibc's `-` (no padding), `_` (space) and `0` flags.
 */
export function strftime(d: Date, format: string): string {
  return format.replace(/%([-_0^#]?)([a-zA-Z%])/g, (whole, flag: string, c: string) => {
    const num = (n: number, width: number, padChar = '0'): string => {
      if (flag === '-') return String(n);
      const p = flag === '_' ? ' ' : flag === '0' ? '0' : padChar;
      return String(n).padStart(width, p);
    };
    const text = (s: string): string => (flag === '^' ? s.toUpperCase() : s);
    const hour12 = d.getHours() % 12 || 12;
    switch (c) {
      case 'a':
        return text(DAYS[d.getDay()].slice(0, 3));
      case 'A':
        return text(DAYS[d.getDay()]);
      case 'b':
      case 'h':
        return text(MONTHS[d.getMonth()].slice(0, 3));
      case 'B':
        return text(MONTHS[d.getMonth()]);
      case 'c':
        return strftime(d, '%a %b %e %H:%M:%S %Y');
      case 'C':
        return num(Math.floor(d.getFullYear() / 100), 2);
      case 'd':
        return num(d.getDate(), 2);
      case 'D':
        return strftime(d, '%m/%d/%y');
      case 'e':
        return num(d.getDate(), 2, ' ');
      case 'f':
        return num(d.getMilliseconds() * 1000, 6);
      case 'F':
        return strftime(d, '%Y-%m-%d');
      case 'G':
        return num(isoWeek(d)[0], 4);
      case 'g':
        return num(isoWeek(d)[0] % 100, 2);
      case 'H':
        return num(d.getHours(), 2);
      case 'I':
        return num(hour12, 2);
      case 'j':
        return num(dayOfYear(d), 3);
      case 'k':
        return num(d.getHours(), 2, ' ');
      case 'l':
        return num(hour12, 2, ' ');
      case 'm':
        return num(d.getMonth() + 1, 2);
      case 'M':
        return num(d.getMinutes(), 2);
      case 'n':
        return '\n';
      case 'p':
        return d.getHours() < 12 ? 'AM' : 'PM';
      case 'P':
        return d.getHours() < 12 ? 'am' : 'pm';
      case 'r':
        return strftime(d, '%I:%M:%S %p');
      case 'R':
        return strftime(d, '%H:%M');
      case 's':
        return String(Math.floor(d.getTime() / 1000));
      case 'S':
        return num(d.getSeconds(), 2);
      case 't':
        return '\t';
      case 'T':
        return strftime(d, '%H:%M:%S');
      case 'u':
        return String(d.getDay() || 7);
      case 'U':
        return num(weekOfYear(d, 0), 2);
      case 'V':
        return num(isoWeek(d)[1], 2);
      case 'w':
        return String(d.getDay());
      case 'W':
        return num(weekOfYear(d, 1), 2);
      case 'x':
        return strftime(d, '%m/%d/%y');
      case 'X':
        return strftime(d, '%H:%M:%S');
      case 'y':
        return num(d.getFullYear() % 100, 2);
      case 'Y':
        return String(d.getFullYear());
      // transformers formats datetime.now(), a naive datetime: no offset, no zone name.
      case 'z':
      case 'Z':
        return '';
      case '%':
        return '%';
      default:
        return whole;
    }
  });
}

export function strftimeNow(args: unknown[]): string {
  const format = args[0];
  if (typeof format !== 'string') return fail(`strftime() argument 1 must be str, not ${pyTypeName(format)}`);
  return strftime(new Date(), format);
}

function namespaceEntry(pair: unknown): [string, unknown] {
  let values: unknown[] | undefined;
  if (Array.isArray(pair)) values = pair;
  else if (typeof pair === 'string') values = Array.from(pair);
  if (!values || values.length !== 2) throw new Error('namespace expected an object or an iterable of [key, value] pairs');
  const [key, value] = values;
  if (typeof key !== 'string') throw new Error('namespace keys must be strings');
  return [key, value];
}

export function namespace(args: unknown[]): Namespace {
  if (args.length === 1 && args[0] instanceof Kwargs) return new Namespace(new Map(args[0].m));
  const positional = args.slice();
  let kwargs: Kwargs | undefined;
  if (positional.at(-1) instanceof Kwargs) kwargs = positional.pop() as Kwargs;
  if (positional.length > 1) throw new Error(`namespace expected at most 1 argument, got ${positional.length}`);
  const entries = new Map<string, unknown>();
  if (positional.length === 1) {
    const source = positional[0];
    const k = kindOf(source);
    if (k === Kind.Object) {
      const o = source as object;
      for (const key of dictKeys(o)) entries.set(key, dictGet(o, key));
    } else if (k === Kind.Array || k === Kind.Tuple) {
      for (const pair of source as unknown[]) {
        const [key, value] = namespaceEntry(pair);
        entries.set(key, value);
      }
    } else if (k === Kind.Kwargs) {
      for (const [key, value] of (source as Kwargs).m) entries.set(key, value);
    } else {
      fail(`'${pyTypeName(source)}' object is not iterable`);
    }
  }
  if (kwargs) for (const [key, value] of kwargs.m) entries.set(key, value);
  return new Namespace(entries);
}
