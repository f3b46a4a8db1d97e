/**
 * Text files as bytes -> string. Scene, library and mesh files are UTF-8; a
 * file saved in another encoding must be refused with a message that says
 * so, not decoded into replacement characters that surface later as a
 * duplicate name "\ufffd" or a malformed number on line 1.
 */
import { InputError } from '../errors.ts';

/**
 * UTF-16 bytes decoded as UTF-8: a byte-order mark (FF FE or FE FF) becomes two
 * replacement characters, and ASCII text has a NUL beside every character.
 */
export function looksUtf16(text: string): boolean {
  if (text.startsWith('\ufffd\ufffd')) return true;
  const head = text.slice(0, 64);
  let nul = 0;
  for (let i = 0; i < head.length; i++) if (head.charCodeAt(i) === 0) nul++;
  return head.length >= 4 && nul >= head.length / 4;
}

/** The message for a UTF-16 file (JSON and OBJ files alike are UTF-8). */
export const UTF16_MESSAGE = 'the file is UTF-16 text, not UTF-8: save it as UTF-8';

/** The message for a UTF-32 file. */
export const UTF32_MESSAGE = 'the file is UTF-32 text, not UTF-8: save it as UTF-8';

/** The message for a file of zero bytes only (a file cut from /dev/zero, a disk image's gap). */
export const NUL_MESSAGE = 'the file holds only NUL bytes (zeros), not text';

/**
 * Why text decoded as UTF-8 is not a text file in UTF-8, from its start, or
 * null: UTF-32 (a byte-order mark FF FE 00 00 or 00 00 FE FF, or three NULs
 * in every four characters), NUL bytes only, or UTF-16 (looksUtf16). Each
 * was called UTF-16 before.
 */
export function encodingProblem(text: string): string | null {
  if (text.startsWith('\ufffd\ufffd\0\0') || text.startsWith('\0\0\ufffd\ufffd')) return UTF32_MESSAGE;
  const head = text.slice(0, 64);
  let nul = 0;
  for (let i = 0; i < head.length; i++) if (head.charCodeAt(i) === 0) nul++;
  if (head.length >= 4 && nul === head.length) return NUL_MESSAGE;
  if (head.length >= 8 && nul >= head.length * 0.7) return UTF32_MESSAGE;
  return looksUtf16(text) ? UTF16_MESSAGE : null;
}

/** Length of the UTF-8 sequence starting at bytes[i], or 0 where none valid starts (RFC 3629: no overlongs, surrogates or code points past U+10FFFF). */
function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80, hi = c === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80, hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** Byte offset of the first byte that does not start a valid UTF-8 sequence, or -1 when all are valid. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    if (bytes[i]! < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(bytes, i);
    if (n === 0) return i;
    i += n;
  }
  return -1;
}

/**
 * The file's bytes as text. A UTF-16 file (by its byte-order mark) and bytes
 * that are not UTF-8 are an InputError naming the file and, for the latter,
 * the line and column of the first bad byte and its value:
 * `scene.json: line 3, column 14: the file is not UTF-8 text (byte 0xff): save it as UTF-8`.
 */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  if (bytes.length >= 4 && ((bytes[0] === 0xff && bytes[1] === 0xfe && bytes[2] === 0 && bytes[3] === 0) || (bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe && bytes[3] === 0xff))) {
    throw new InputError(UTF32_MESSAGE, file);
  }
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    throw new InputError(UTF16_MESSAGE, file);
  }
  const bad = firstInvalidUtf8(bytes);
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  if (bad < 0) return decoder.decode(bytes);
  // Line and column in characters, as editors count them (the prefix is valid UTF-8).
  const before = decoder.decode(bytes.subarray(0, bad));
  const lineStart = before.lastIndexOf('\n') + 1;
  let line = 1;
  for (let i = 0; i < lineStart; i++) if (before.charCodeAt(i) === 10) line++;
  const column = before.length - lineStart + 1;
  throw new InputError(
    `the file is not UTF-8 text (byte 0x${bytes[bad]!.toString(16).padStart(2, '0')}): save it as UTF-8`,
    file,
    `line ${line}, column ${column}`,
  );
}
