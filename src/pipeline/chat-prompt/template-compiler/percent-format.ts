/**
 * Python's printf-style `str % args`, which the `%` operator and jinja2's `format` filter use
 * (`"%s" | format(x)` is `"%s" % (x,)`): flags `-+ 0#`, width, precision, and the conversions
 * s r a d i u f F e E g G x X o c %.
 */
import { fail, floatRepr, numeric, pyRepr, pyStr, pyTypeName } from './py.js';
import { Kind, dictGet, dictHas, kindOf } from './values.js';

const SPEC = /%(?:\(([^)]*)\))?([-+ 0#]*)(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])/g;

function pad(body: string, flags: string, width: number, numericValue: boolean): string {
  if (body.length >= width) return body;
  if (flags.includes('-')) return body.padEnd(width);
  if (numericValue && flags.includes('0')) {
    const sign = /^[-+ ]/.test(body) ? body[0] : '';
    const rest = sign ? body.slice(1) : body;
    return sign + rest.padStart(width - sign.length, '0');
  }
  return body.padStart(width);
}

function signed(text: string, negative: boolean, flags: string): string {
  if (negative) return '-' + text;
  if (flags.includes('+')) return '+' + text;
  if (flags.includes(' ')) return ' ' + text;
  return text;
}

function toNumber(v: unknown, conv: string): number | bigint {
  const n = numeric(v);
  if (n === null) fail(`%${conv} format: a real number is required, not ${pyTypeName(v)}`);
  return n;
}

function exponent(x: number, precision: number, upper: boolean): string {
  const [m, e] = x.toExponential(precision).split('e');
  const exp = Number(e);
  const text = `${m}e${exp < 0 ? '-' : '+'}${Math.abs(exp).toString().padStart(2, '0')}`;
  return upper ? text.toUpperCase() : text;
}

function general(x: number, precision: number, alt: boolean, upper: boolean): string {
  const p = precision === 0 ? 1 : precision;
  if (x === 0) return alt ? '0.' + '0'.repeat(p - 1) : '0';
  const exp = Math.floor(Math.log10(Math.abs(Number(x.toExponential(p - 1)))));
  let text: string;
  if (exp < -4 || exp >= p) {
    text = exponent(x, p - 1, upper);
    if (!alt) text = text.replace(/\.?0+(?=e)/i, '');
  } else {
    text = x.toFixed(Math.max(p - 1 - exp, 0));
    if (!alt && text.includes('.')) text = text.replace(/\.?0+$/, '');
  }
  return text;
}

function convert(v: unknown, conv: string, flags: string, width: number, precision: number | null): string {
  switch (conv) {
    case 's':
    case 'r':
    case 'a': {
      let s = conv === 's' ? pyStr(v) : pyRepr(v);
      if (precision !== null) s = Array.from(s).slice(0, precision).join('');
      return pad(s, flags, width, false);
    }
    case 'c': {
      const s = typeof v === 'string' ? v : String.fromCodePoint(Number(toNumber(v, conv)));
      return pad(s, flags, width, false);
    }
    case 'd':
    case 'i':
    case 'u': {
      let n = toNumber(v, conv);
      if (typeof n === 'number') n = Math.trunc(n);
      const negative = n < 0;
      let digits = (negative ? -n : n).toString();
      if (precision !== null) digits = digits.padStart(precision, '0');
      return pad(signed(digits, negative, flags), flags, width, true);
    }
    case 'x':
    case 'X':
    case 'o': {
      const n = toNumber(v, conv);
      if (typeof n === 'number' && !Number.isInteger(n)) fail(`%${conv} format: an integer is required, not float`);
      const negative = n < 0;
      const abs = negative ? -n : n;
      let digits = abs.toString(conv === 'o' ? 8 : 16);
      if (conv === 'X') digits = digits.toUpperCase();
      if (flags.includes('#')) digits = (conv === 'o' ? '0o' : conv === 'x' ? '0x' : '0X') + digits;
      return pad(signed(digits, negative, flags), flags, width, true);
    }
    default: {
      const x = Number(toNumber(v, conv));
      const p = precision ?? 6;
      const negative = x < 0 || Object.is(x, -0);
      const abs = Math.abs(x);
      let body: string;
      if (!Number.isFinite(abs)) body = Number.isNaN(abs) ? 'nan' : 'inf';
      else if (conv === 'f' || conv === 'F') body = abs.toFixed(p);
      else if (conv === 'e' || conv === 'E') body = exponent(abs, p, conv === 'E');
      else body = general(abs, p, flags.includes('#'), conv === 'G');
      if (conv === 'F' || conv === 'E' || conv === 'G') body = body.toUpperCase();
      if (flags.includes('#') && (conv === 'f' || conv === 'F') && p === 0) body += '.';
      return pad(signed(body, negative && !Number.isNaN(x), flags), flags, width, Number.isFinite(abs));
    }
  }
}

/** `format % args`: args is a tuple (array) of values, a dict (for `%(name)s`), or one value. */
export function percentFormat(format: string, args: unknown): string {
  const k = kindOf(args);
  const list: unknown[] = k === Kind.Tuple ? (args as unknown[]) : [args];
  const mapping = k === Kind.Object ? (args as object) : null;
  let i = 0;
  const next = (): unknown => {
    if (i >= list.length) fail('not enough arguments for format string');
    return list[i++];
  };
  const out = format.replace(SPEC, (_m, key: string | undefined, flags: string, w: string | undefined, pr: string | undefined, conv: string) => {
    if (conv === '%') return '%';
    const width = w === '*' ? Number(next()) : w ? Number(w) : 0;
    const precision = pr === '*' ? Number(next()) : pr !== undefined ? Number(pr) : null;
    let value: unknown;
    if (key !== undefined) {
      if (!mapping) fail('format requires a mapping');
      if (!dictHas(mapping, key)) fail(`KeyError: ${pyRepr(key)}`);
      value = dictGet(mapping, key);
    } else value = mapping && list.length === 1 && i === 0 && k === Kind.Object ? next() : next();
    return convert(value, conv, flags, width, precision);
  });
  if (!mapping && i < list.length) fail('not all arguments converted during string formatting');
  return out;
}

export { floatRepr };
