/**
 * JSON text -> value, with errors that name the file, line and column
 * (docs/SCENE_FORMAT.md, "How files are checked"), for scenes and libraries.
 *
 * Errors are located by our own scanner rather than by reading the
 * engine's message: V8 (Node 20) often says neither position nor line, Firefox
 * says line and column, Safari says neither. The scanner runs only to explain
 * a failure, and, after JSON.parse succeeded, to catch duplicate keys, which
 * JSON.parse silently resolves to the last one (a second "friction" in a body
 * is a mistake the user should hear about).
 */
import { InputError } from '../errors.ts';
import { quote, terminalSafe } from '../util/echo.ts';
import { encodingProblem, NUL_MESSAGE } from '../util/text.ts';

/**
 * JSON.parse with errors that name the file, line and column:
 * `scene.json: line 4, column 12: invalid JSON: expected "," or "}" after a property value, found a string (missing ","?)`.
 * A leading UTF-8 byte order mark is skipped (some editors write one) and
 * not counted in columns, since editors do not show it.
 */
/** The first statement of a Wavefront OBJ file: a vertex, face, object, group or material line, or a comment. */
const OBJ_START = /^(#|(v|vn|vt|f|o|g|s|mtllib|usemtl)[ \t])/;

export function parseJsonText(text: string, file: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const encoding = encodingProblem(body);
  if (encoding !== null) throw new InputError(encoding === NUL_MESSAGE ? encoding : `${encoding} (JSON files are UTF-8)`, file);
  // Scanned before it is parsed: a document of more than MAX_JSON_VALUES
  // values is refused before JSON.parse spends the memory on it.
  const problem = scanJson(body);
  if (problem?.tooLarge) throw new InputError(problem.message, file, lineColumn(body, problem.offset));
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    // A mesh given where a scene or library belongs: say what it is.
    if (problem && problem.offset === body.length - body.trimStart().length && OBJ_START.test(body.slice(problem.offset, problem.offset + 80))) {
      throw new InputError('this is a Wavefront OBJ mesh, not JSON; expected a scene or library file (a mesh is named by a shape\'s "path" in one)', file, 'line 1');
    }
    if (problem) throw new InputError(`invalid JSON: ${problem.message}`, file, lineColumn(body, problem.offset));
    // The scanner found nothing: fall back to whatever position the engine's message gives.
    const native = e instanceof Error ? e.message : String(e);
    const offset = positionFromMessage(native, body);
    throw new InputError(`invalid JSON: ${native}`, file, offset === undefined ? undefined : lineColumn(body, offset));
  }
  if (problem?.duplicate) throw new InputError(problem.message, file, lineColumn(body, problem.offset));
  return value;
}

/** 1-based `line L, column C` of a UTF-16 offset; a "\r\n" pair ends a line like "\n". */
export function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `line ${line}, column ${end - lineStart + 1}`;
}

/** "... at position 42" (V8) or "... line 3 column 7 ..." (Firefox, newer V8) -> offset. */
function positionFromMessage(message: string, text: string): number | undefined {
  const pos = /position (\d+)/.exec(message);
  if (pos) return Number(pos[1]);
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (!lc) return undefined;
  let line = Number(lc[1]);
  let i = 0;
  while (line > 1 && i < text.length) {
    if (text.charCodeAt(i++) === 10) line--;
  }
  return i + Number(lc[2]) - 1;
}

interface JsonProblem {
  offset: number;
  message: string;
  /**
   * Valid JSON that means something else than it says (a duplicate key, a
   * number that reads as 0) or that what walks it afterwards cannot (nesting
   * past MAX_JSON_DEPTH): reported after a successful parse too.
   */
  duplicate?: boolean;
  /** More than MAX_JSON_VALUES values: reported without parsing the document. */
  tooLarge?: boolean;
}

/**
 * Deepest nesting of arrays and objects accepted. JSON.parse takes any depth,
 * but what walks a value afterwards (validation, formatJson) recurses: a
 * hundred thousand '[' would overflow its stack.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Most values (objects, arrays, strings, numbers, true, false, null; keys not
 * counted) in one scene or library document. JSON.parse would take a 256 MB
 * file of `[],` (85 million empty arrays) and run out of memory on it; the
 * heaviest part of a scene is its bodies (about 1 KB each as it is read and
 * checked), and a scene holds at most MAX_BODIES of them (validate.ts):
 * 20 million values are those bodies with some twenty values each.
 */
export const MAX_JSON_VALUES = 20_000_000;

/** What the scanner expects next. */
const Expect = {
  /** Any value. */
  Value: 0,
  /** Just after '[': a value or ']'. */
  ValueOrClose: 1,
  /** Just after '{': a key or '}'. */
  KeyOrClose: 2,
  /** After ',' in an object: a key. */
  Key: 3,
  /** After a complete value: ',' or the closing bracket (or the end at top level). */
  Separator: 4,
} as const;
type Expect = (typeof Expect)[keyof typeof Expect];

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** What starts at `i`, for "found ..." in messages: a string, a number, a quoted word or character. */
function tokenAt(text: string, i: number): string {
  const c = text.charCodeAt(i);
  if (c === 0x22) return 'a string';
  if (c === 0x2d || isDigit(c)) return 'a number';
  const m = /^[A-Za-z_$][\w$]*/.exec(text.slice(i, i + 40));
  if (m) return quote(m[0]);
  const cp = text.codePointAt(i)!;
  // A space JSON does not allow (a no-break space pasted from a web page)
  // would print as a blank between the quotes: name it by its code point.
  if (cp > 0x7f && /\s/u.test(String.fromCodePoint(cp))) return `a white-space character JSON does not allow (U+${cp.toString(16).toUpperCase().padStart(4, '0')}; only space, tab and line breaks)`;
  return quote(String.fromCodePoint(cp));
}

/**
 * Finds the first RFC 8259 violation in `text`, or the first duplicate key.
 * Iterative (an explicit stack of open containers), so ten thousand nested
 * '[' cannot overflow the call stack; strings and numbers are skipped with
 * index arithmetic, and only object keys are materialised (for duplicates).
 */
function scanJson(text: string): JsonProblem | undefined {
  const n = text.length;
  /** Open containers: a Set of seen keys for an object, null for an array. */
  const stack: (Set<string> | null)[] = [];
  let i = 0;
  let expect: Expect = Expect.Value;
  /** Offset of the ',' just read, or -1: a close bracket right after it is a trailing comma. */
  let commaAt = -1;
  let values = 0;

  const fail = (offset: number, message: string): JsonProblem => ({ offset, message });

  /** Skips a string starting at the quote at `i`; returns the index after it, or a problem. */
  const skipString = (start: number): number | JsonProblem => {
    let j = start + 1;
    for (;;) {
      if (j >= n) return fail(start, 'unterminated string (no closing ")');
      const c = text.charCodeAt(j);
      if (c === 0x22) return j + 1;
      if (c === 0x0a || c === 0x0d) return fail(j, 'unterminated string (a string cannot contain a line break; write \\n, or add the missing ")');
      if (c < 0x20) return fail(j, 'control character in a string (escape it, e.g. \\t)');
      if (c === 0x5c) {
        const e = text.charCodeAt(j + 1);
        if (e === 0x75) {
          for (let k = 2; k < 6; k++) {
            if (!isHex(text.charCodeAt(j + k))) return fail(j, 'invalid \\u escape (expected 4 hex digits)');
          }
          j += 6;
          continue;
        }
        // " \ / b f n r t
        if (![0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(e)) {
          return fail(j, `invalid escape ${quote(text.slice(j, j + 2))} in a string`);
        }
        j += 2;
        continue;
      }
      j++;
    }
  };

  /** Skips a number starting at `i`; returns the index after it, or a problem. */
  const skipNumber = (start: number): number | JsonProblem => {
    let j = start;
    if (text.charCodeAt(j) === 0x2d) j++;
    if (text.charCodeAt(j) === 0x30) {
      j++;
      if (isDigit(text.charCodeAt(j))) return fail(start, 'invalid number (no leading zeros allowed)');
    } else if (isDigit(text.charCodeAt(j))) {
      while (isDigit(text.charCodeAt(j))) j++;
    } else {
      return fail(start, 'invalid number (expected a digit after "-")');
    }
    let fraction = 0;
    if (text.charCodeAt(j) === 0x2e) {
      j++;
      if (!isDigit(text.charCodeAt(j))) return fail(j, 'invalid number (expected a digit after ".")');
      const from = j;
      while (isDigit(text.charCodeAt(j))) j++;
      fraction = j - from;
    }
    const mantissaEnd = j;
    let tiny = fraction >= 300;
    const e = text.charCodeAt(j);
    if (e === 0x65 || e === 0x45) {
      j++;
      const s = text.charCodeAt(j);
      if (s === 0x2b || s === 0x2d) j++;
      const digits = j;
      if (!isDigit(text.charCodeAt(j))) return fail(j, 'invalid number (expected a digit in the exponent)');
      while (isDigit(text.charCodeAt(j))) j++;
      tiny ||= s === 0x2d && j - digits >= 3;
    }
    // A number below the smallest 64-bit float (5e-324) reads as 0: say so
    // rather than let "expected a positive number, got 0" puzzle the user.
    // (Only a long fraction or a large negative exponent can get there.)
    if (tiny) {
      const token = text.slice(start, j);
      if (Number(token) === 0 && /[1-9]/.test(text.slice(start, mantissaEnd))) {
        return { offset: start, message: `the number ${quote(token, 40)} is smaller than the smallest 64-bit float (5e-324) and would read as 0; write 0 or a larger number`, duplicate: true };
      }
    }
    return j;
  };

  /** "expected X, found Y", with specific wording for the usual mistakes (trailing comma, comments, single quotes). */
  const unexpected = (what: string): JsonProblem => {
    if (i >= n) return fail(i, n === 0 ? 'the file is empty' : /^\s*$/.test(text) ? 'the file holds only white space' : `unexpected end of input (expected ${what})`);
    const c = text[i]!;
    if (commaAt >= 0 && (c === '}' || c === ']')) return fail(commaAt, `trailing comma before "${c}" (remove this ",")`);
    if (c === '/') return fail(i, 'comments are not allowed in JSON');
    if (c === "'") return fail(i, 'strings must use double quotes (")');
    // A value where a separator belongs is nearly always a forgotten comma.
    const value = c === '"' || c === '{' || c === '[' || c === '-' || (c >= '0' && c <= '9') || /^(true|false|null)/.test(text.slice(i, i + 5));
    const hint = expect === Expect.Separator && value ? ' (missing ","?)' : '';
    return fail(i, `expected ${what}, found ${tokenAt(text, i)}${hint}`);
  };

  for (;;) {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
    const c = i < n ? text.charCodeAt(i) : -1;

    // Right after an opening bracket the container may close at once; otherwise a value / key follows.
    if (expect === Expect.ValueOrClose || expect === Expect.KeyOrClose) {
      if (c === (expect === Expect.ValueOrClose ? 0x5d : 0x7d)) {
        stack.pop();
        i++;
        expect = Expect.Separator;
        continue;
      }
      expect = expect === Expect.ValueOrClose ? Expect.Value : Expect.Key;
    }

    switch (expect) {
      case Expect.Value: {
        if (++values > MAX_JSON_VALUES && i < n) {
          return { offset: i, message: `more than ${MAX_JSON_VALUES} JSON values (numbers, strings, arrays, objects): a scene or library holds at most ${MAX_JSON_VALUES}, enough for a million bodies; a larger one would run out of memory as it is read (split it)`, tooLarge: true };
        }
        if ((c === 0x7b || c === 0x5b) && stack.length >= MAX_JSON_DEPTH) {
          return { offset: i, message: `arrays and objects nested more than ${MAX_JSON_DEPTH} deep (no scene or library nests a tenth of that)`, duplicate: true };
        }
        if (c === 0x7b) {
          stack.push(new Set());
          i++;
          expect = Expect.KeyOrClose;
        } else if (c === 0x5b) {
          stack.push(null);
          i++;
          expect = Expect.ValueOrClose;
        } else if (c === 0x22) {
          const end = skipString(i);
          if (typeof end !== 'number') return end;
          i = end;
          expect = Expect.Separator;
        } else if (c === 0x2d || isDigit(c)) {
          const end = skipNumber(i);
          if (typeof end !== 'number') return end;
          i = end;
          expect = Expect.Separator;
        } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
          i += 4;
          expect = Expect.Separator;
        } else if (text.startsWith('false', i)) {
          i += 5;
          expect = Expect.Separator;
        } else if (text.startsWith('NaN', i) || text.startsWith('Infinity', i)) {
          return fail(i, `${tokenAt(text, i)} is not a JSON number`);
        } else {
          return unexpected('a value');
        }
        commaAt = -1;
        continue;
      }
      case Expect.Key: {
        if (c !== 0x22) return unexpected('a property name in double quotes');
        const end = skipString(i);
        if (typeof end !== 'number') return end;
        // Keys rarely contain escapes; decode only those through JSON.parse.
        const raw = text.slice(i + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        const seen = stack[stack.length - 1]!;
        if (seen.has(key)) return { offset: i, message: `duplicate key ${quote(key)} (each key may appear only once in an object)`, duplicate: true };
        seen.add(key);
        i = end;
        while (i < n && isSpace(text.charCodeAt(i))) i++;
        commaAt = -1;
        if (text.charCodeAt(i) !== 0x3a) {
          return unexpected(`":" after the property name ${quote(key)}`);
        }
        i++;
        expect = Expect.Value;
        continue;
      }
      case Expect.Separator: {
        if (stack.length === 0) {
          if (i < n) return fail(i, `unexpected ${tokenAt(text, i)} after the end of the JSON value`);
          return undefined;
        }
        const top = stack[stack.length - 1];
        const close = top === null ? 0x5d : 0x7d;
        if (c === 0x2c) {
          commaAt = i;
          i++;
          expect = top === null ? Expect.Value : Expect.Key;
        } else if (c === close) {
          stack.pop();
          i++;
        } else {
          return unexpected(top === null ? `"," or "]" after an array element` : `"," or "}" after a property value`);
        }
        continue;
      }
    }
  }
}

/**
 * JSON text for people to read and edit: like JSON.stringify(v, null, 2), but
 * an array or object whose one-line form fits in `width` columns stays on one
 * line, so vectors and quaternions read as [0, 0.031, 0] and not as five lines.
 * The values are JSON.stringify's own (numbers round-trip exactly), except
 * that what JSON.stringify leaves raw in a string and a terminal may act on
 * (C1 controls, bidirectional overrides: `terminalSafe`) is written as
 * \uXXXX, the same string to any JSON reader.
 */
export function formatJson(value: unknown, width = 100): string {
  const write = (v: unknown, indent: string, key: string): string => {
    const flat = inline(v);
    if (flat !== undefined && indent.length + key.length + flat.length <= width) return flat;
    const inner = indent + '  ';
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[\n${v.map((x) => inner + write(x, inner, '')).join(',\n')}\n${indent}]`;
    }
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      if (entries.length === 0) return '{}';
      return `{\n${entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${write(x, inner, `${JSON.stringify(k)}: `)}`).join(',\n')}\n${indent}}`;
    }
    return JSON.stringify(v) ?? 'null';
  };
  return terminalSafe(write(value, '', ''), Infinity);
}

/** The one-line form of a value, with a space after each ',' and ':'. */
function inline(v: unknown): string | undefined {
  if (Array.isArray(v)) return `[${v.map((x) => inline(x) ?? 'null').join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}: ${inline(x)}`).join(', ')}}`;
  }
  return JSON.stringify(v);
}
