/**
 * Echoing user strings in messages. A name, key or OBJ token comes from a
 * file anyone may have written: repeated raw, an escape sequence in it could
 * clear the terminal and print a fake "ok", a NUL or a bidirectional override
 * could hide part of the line, and a 1 MB name would flood the screen. So
 * every user string a message repeats goes through `quote` (escaped, capped),
 * and every line the command line prints goes through `terminalSafe` as a
 * last line of defence for strings that reached a message some other way
 * (an exception's text, a file name given on the command line).
 */

/** Characters of one user string a message repeats at most. */
export const ECHO_MAX = 80;

/** Characters of one message the command line prints at most. */
export const MESSAGE_MAX = 4000;

/**
 * What may not reach a terminal raw: C0 and C1 controls and DEL, the soft
 * hyphen, zero-width and bidirectional formatting characters, line and
 * paragraph separators, the byte order mark, and lone surrogates (with the
 * `u` flag a valid pair is one code point and does not match).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]/gu;
const UNSAFE_KEEP_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]/gu;

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
  return SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** The string with every unsafe character written as an escape (\n, \t, \u001b, ...). */
export function escapeControls(s: string): string {
  return s.replace(UNSAFE, escapeChar);
}

/** Characters of a file name at the head of a message at most (fileLabel). */
export const LABEL_MAX = 200;

/**
 * A file name at the head of a message or a line ("FILE: WHERE: ...",
 * "FILE: ok: ..."): unquoted, as compilers write it, but with every unsafe
 * character escaped, line breaks included. terminalSafe keeps line breaks
 * (messages may have several lines), so a name holding one would otherwise
 * start a line of its own that the name's author wrote
 * (`stackfield check "$(printf 'a\nstackfield: ok')"`). A name longer than
 * LABEL_MAX keeps its start and its end (the file's own name) around "...",
 * with its length said, so the message after it is never cut off.
 */
export function fileLabel(path: string): string {
  if (path.length <= LABEL_MAX) return escapeControls(path);
  const half = LABEL_MAX / 2;
  let end = path.length - half;
  const c = path.charCodeAt(end);
  if (c >= 0xdc00 && c <= 0xdfff) end++;
  return `${escapeControls(head(path, half))}...${escapeControls(path.slice(end))} (${path.length} characters)`;
}

/** The first `max` characters, not splitting a surrogate pair. */
function head(s: string, max: number): string {
  let end = Math.min(max, s.length);
  const c = s.charCodeAt(end - 1);
  if (end < s.length && c >= 0xd800 && c <= 0xdbff) end--;
  return s.slice(0, end);
}

/**
 * A user string for a message: in double quotes, `"` and `\` escaped as in
 * JSON, unsafe characters as escapes, and cut after `max` characters with
 * the full length said: `"aaaa..." (1048576 characters)`.
 */
export function quote(s: string, max = ECHO_MAX): string {
  const cut = s.length > max;
  const body = (cut ? head(s, max) : s).replace(/["\\]/g, (c) => `\\${c}`);
  return `"${escapeControls(body)}${cut ? '...' : ''}"${cut ? ` (${s.length} characters)` : ''}`;
}

/**
 * A message as the terminal may show it: line breaks kept, every other
 * unsafe character escaped, and at most MESSAGE_MAX characters.
 */
export function terminalSafe(message: string, max = MESSAGE_MAX): string {
  const cut = message.length > max;
  const body = (cut ? head(message, max) : message).replace(UNSAFE_KEEP_NEWLINE, escapeChar);
  return cut ? `${body}... (${message.length - max} more characters)` : body;
}

/** Characters of a name the app shows in a label or a list at most. */
export const DISPLAY_MAX = 40;

/**
 * A name from a file as the app shows it (a body's label, the body list, the
 * library panel): unsafe characters as escapes, so that a bidirectional
 * override cannot mirror the label and a control character shows as what it
 * is, and cut after `max` characters with an ellipsis, so that a long name
 * cannot cover the view. Unquoted: the text is the name, not a message.
 */
export function displayName(s: string, max = DISPLAY_MAX): string {
  const cut = s.length > max;
  return escapeControls(cut ? head(s, max) : s) + (cut ? '…' : '');
}
