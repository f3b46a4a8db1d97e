import { describe, expect, test } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { lineColumn, parseJsonText, parseSceneText } from '../../src/scene/load.ts';
import { formatJson } from '../../src/scene/json.ts';

/** The InputError thrown by fn (fails the test if it throws anything else or nothing). */
function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error('expected an InputError, nothing was thrown');
}

describe('JSON syntax errors name the file, line and column', () => {
  test('a missing value after a key is located at the offending character', () => {
    const text = '{\n  "format": "stackfield-scene/1",\n  "dt": ,\n}';
    const e = inputError(() => parseSceneText(text, 'scene.json'));
    expect(e.file).toBe('scene.json');
    expect(e.where).toBe('line 3, column 9');
    expect(e.message).toBe('scene.json: line 3, column 9: invalid JSON: expected a value, found ","');
  });

  test('a UTF-16 file (with or without its byte-order mark, either byte order) is named as such', () => {
    const scene = '{"format": "stackfield-scene/1", "bodies": []}';
    const le = Buffer.from(scene, 'utf16le');
    const be = Buffer.from(le).swap16();
    for (const bytes of [Buffer.concat([Buffer.from([0xff, 0xfe]), le]), Buffer.concat([Buffer.from([0xfe, 0xff]), be]), le, be]) {
      // What reading the file as UTF-8 (Node's readFile, a browser's File.text()) makes of it.
      const e = inputError(() => parseSceneText(bytes.toString('utf8'), 'scene.json'));
      expect(e.message).toBe('scene.json: the file is UTF-16 text, not UTF-8: save it as UTF-8 (JSON files are UTF-8)');
    }
    // A UTF-8 file with a byte-order mark is fine, and a NUL inside a string is only a JSON error.
    expect(() => parseJsonText('\ufeff{"a": 1}', 'x.json')).not.toThrow();
    expect(inputError(() => parseJsonText('{"name": "a\u0000b", "padding": "..............."}', 'x.json')).message).toContain('invalid JSON');
  });

  test('a trailing comma is reported at the comma', () => {
    const e = inputError(() => parseJsonText('{\n  "a": 1,\n}', 'x.json'));
    expect(e.where).toBe('line 2, column 9');
    expect(e.message).toContain('trailing comma');
  });

  test('a missing comma between properties says what was expected', () => {
    const e = inputError(() => parseJsonText('{"a": 1\n "b": 2}', 'x.json'));
    expect(e.where).toBe('line 2, column 2');
    expect(e.message).toContain('expected "," or "}" after a property value');
  });

  test('an unterminated string is reported at the line break inside it', () => {
    const e = inputError(() => parseJsonText('{"name": "box\n}', 'x.json'));
    expect(e.where).toBe('line 1, column 14');
    expect(e.message).toContain('unterminated string');
  });

  test('truncated input reports the end of the file', () => {
    const e = inputError(() => parseJsonText('{"bodies": [\n  {"shape": "b"}', 'x.json'));
    expect(e.where).toBe('line 2, column 17');
    expect(e.message).toContain('unexpected end of input');
  });

  test('an empty file says it is empty, and one of only white space says so', () => {
    expect(inputError(() => parseJsonText('', 'empty.json')).message).toContain('the file is empty');
    const e = inputError(() => parseJsonText('  \n', 'blank.json'));
    expect(e.message).toContain('the file holds only white space');
    expect(e.where).toBe('line 2, column 1');
  });

  test('a Wavefront OBJ mesh given as JSON says what it is', () => {
    for (const text of ['v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n', '# made by hand\nv 0 0 0\n', '\n  o cube\nv 0 0 0\n']) {
      const e = inputError(() => parseJsonText(text, 'cube.obj'));
      expect(e.message).toBe('cube.obj: line 1: this is a Wavefront OBJ mesh, not JSON; expected a scene or library file (a mesh is named by a shape\'s "path" in one)');
    }
    // A word that only starts like one is not taken for a mesh.
    expect(inputError(() => parseJsonText('value', 'x.json')).message).toContain('invalid JSON');
  });

  test('a white-space character JSON does not allow is named by its code point, not printed as a blank', () => {
    expect(inputError(() => parseJsonText('{"a":\u00a01}', 'x.json')).message).toContain('found a white-space character JSON does not allow (U+00A0; only space, tab and line breaks)');
  });

  test('comments, single quotes, NaN and leading zeros get specific messages', () => {
    expect(inputError(() => parseJsonText('{ // note\n}', 'x.json')).message).toContain('comments are not allowed');
    expect(inputError(() => parseJsonText("{'a': 1}", 'x.json')).message).toContain('double quotes');
    expect(inputError(() => parseJsonText('[NaN]', 'x.json')).message).toContain('"NaN" is not a JSON number');
    expect(inputError(() => parseJsonText('[007]', 'x.json')).message).toContain('leading zeros');
  });

  test('a byte order mark does not shift the reported column', () => {
    expect(inputError(() => parseJsonText('\uFEFF{"a" 1}', 'x.json')).where).toBe('line 1, column 6');
  });

  test('text after the value is an error', () => {
    const e = inputError(() => parseJsonText('{}\n{}', 'x.json'));
    expect(e.where).toBe('line 2, column 1');
  });

  test('a duplicate key is an error even though JSON.parse accepts it', () => {
    const e = inputError(() => parseJsonText('{"bodies": [{"friction": 1,\n "friction": 2}]}', 'x.json'));
    expect(e.where).toBe('line 2, column 2');
    expect(e.message).toContain('duplicate key "friction"');
  });

  test('a number below the smallest 64-bit float is an error (JSON.parse reads it as 0); zero written so, and small numbers that are floats, are not', () => {
    for (const [text, token] of [['{"mass": 1e-400}', '1e-400'], ['{"v": [0,\n -2.5E-999]}', '-2.5E-999']] as const) {
      const e = inputError(() => parseJsonText(text, 'x.json'));
      expect(e.message).toContain(`the number "${token}" is smaller than the smallest 64-bit float (5e-324) and would read as 0`);
    }
    expect(inputError(() => parseJsonText('{"v": [0,\n -2.5E-999]}', 'x.json')).where).toBe('line 2, column 2');
    expect(parseJsonText('{"a": 0e-999, "b": 0.000e-500, "c": 5e-324, "d": 1e-300}', 'x.json')).toEqual({ a: 0, b: 0, c: 5e-324, d: 1e-300 });
    // Written out in full as well: 400 zeros after the point, then a 1.
    const long = `0.${'0'.repeat(400)}1`;
    expect(inputError(() => parseJsonText(`{"dt": ${long}}`, 'x.json')).message).toContain('is smaller than the smallest 64-bit float (5e-324) and would read as 0');
    const zeros = `0.${'0'.repeat(400)}`, small = `0.${'0'.repeat(300)}1`;
    expect(parseJsonText(`{"a": ${zeros}, "b": ${small}}`, 'x.json')).toEqual({ a: 0, b: Number(small) });
  });

  test('deep nesting neither overflows the stack nor throws anything but InputError', () => {
    const deep = '['.repeat(100_000);
    expect(inputError(() => parseJsonText(deep, 'x.json')).message).toBe('x.json: line 1, column 257: invalid JSON: arrays and objects nested more than 256 deep (no scene or library nests a tenth of that)');
    // Valid JSON too (JSON.parse takes it, but formatJson and the validators recurse over the value).
    const valid = `{"size": ${'['.repeat(100_000)}1${']'.repeat(100_000)}}`;
    expect(inputError(() => parseJsonText(valid, 'x.json')).message).toBe('x.json: line 1, column 265: arrays and objects nested more than 256 deep (no scene or library nests a tenth of that)');
    const deepest = `${'['.repeat(256)}1${']'.repeat(256)}`;
    expect(JSON.parse(formatJson(parseJsonText(deepest, 'x.json')))).toEqual(JSON.parse(deepest));
  });

  test('a document of more than 20 000 000 values is refused before it is parsed, at the value past the limit', () => {
    // 20 000 001 numbers in an array (40 MB): the array itself is one value more.
    const many = `[${'0,'.repeat(20_000_000)}0]`;
    expect(inputError(() => parseJsonText(many, 'x.json')).message).toBe(
      'x.json: line 1, column 40000000: more than 20000000 JSON values (numbers, strings, arrays, objects): a scene or library holds at most 20000000, enough for a million bodies; a larger one would run out of memory as it is read (split it)',
    );
    const enough = `[${'0,'.repeat(19_999_998)}0]`;
    expect((parseJsonText(enough, 'x.json') as unknown[]).length).toBe(19_999_999);
  });

  test('lineColumn counts CRLF line ends as one line break', () => {
    expect(lineColumn('ab\r\ncd', 4)).toBe('line 2, column 1');
    expect(lineColumn('abc', 2)).toBe('line 1, column 3');
  });
});

describe('valid JSON parses exactly as JSON.parse does', () => {
  test('escapes, unicode, exponents, nesting and a byte order mark', () => {
    const text = '{"s": "a\\"b\\\\c\\/\\u00e9\\n\\t", "n": [-0, 1.5e-3, 2E+2, 1e999], "e": [{}, [], [[]]], "t": true, "f": false, "z": null, "ü": "ä"}';
    const value = parseJsonText('\uFEFF' + text, 'x.json');
    expect(value).toEqual(JSON.parse(text));
  });

  test('every one-character deletion or insertion in a scene is either parsed like JSON.parse or located by line and column', () => {
    // Guards the scanner against disagreeing with the engine: when JSON.parse
    // fails, the scanner must find the problem (the fallback has no position
    // in Node 20's messages), and when it succeeds the scanner must not object.
    const text = '{"format": "stackfield-scene/1", "dt": 0.005, "shapes": {"b": {"type": "box", "size": [1, 2.5e0, -3]}},\n "bodies": [{"name": "a\\u0041", "shape": "b", "static": false}], "joints": []}';
    const mutations: string[] = [];
    for (let i = 0; i < text.length; i++) {
      mutations.push(text.slice(0, i) + text.slice(i + 1));
      for (const c of ['"', ',', '}', ']', ':', '\\', 'x', '\n', '0', '-']) mutations.push(text.slice(0, i) + c + text.slice(i));
    }
    for (const mutated of mutations) {
      let expected: unknown;
      let ok = true;
      try {
        expected = JSON.parse(mutated);
      } catch {
        ok = false;
      }
      if (ok) {
        expect(parseJsonText(mutated, 'm.json')).toEqual(expected);
      } else {
        const e = inputError(() => parseJsonText(mutated, 'm.json'));
        expect(e.where, mutated).toMatch(/^line \d+, column \d+$/);
        expect(e.message).not.toContain('is not valid JSON'); // V8's own wording means the scanner missed it
      }
    }
  });
});

describe('formatJson', () => {
  test('keeps short arrays on one line and round-trips every value, a name\'s C1 controls and bidirectional overrides written as escapes', () => {
    const value = { name: 'x\u009b2J\u202eevil\u2028\t"é😀', position: [0, 0.031, 1e-7], nested: { list: Array.from({ length: 40 }, (_, i) => i / 3) } };
    const text = formatJson(value);
    expect(text).toContain('"position": [0, 0.031, 1e-7]');
    expect(text).toContain('x\\u009b2J\\u202eevil\\u2028\\t\\"é😀');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028-\u202e]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
