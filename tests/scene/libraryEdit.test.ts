/** The pure record operations behind `stackfield lib add/remove` and the app's editor (src/scene/libraryEdit.ts). */
import { describe, expect, it } from 'vitest';
import { addRecord, emptyLibrary, readRecordKind, removeRecord } from '../../src/scene/libraryEdit.ts';

describe('library records', () => {
  it('adds without changing the input, keeps section order, and replaces only with force', () => {
    const lib = { format: 'stackfield-library/1', shapes: { a: { type: 'sphere', radius: 1 } } };
    const copy = structuredClone(lib);
    const out = addRecord(lib, 'body', 't', { shape: 'a' }, 'l.json');
    expect(lib).toEqual(copy);
    expect(Object.keys(out)).toEqual(['format', 'shapes', 'bodies']);
    expect(() => addRecord(out, 'body', 't', { shape: 'a', mass: 2 }, 'l.json')).toThrow('l.json: bodies.t: body template "t" is already defined here; give --force to replace it');
    expect(addRecord(out, 'body', 't', { shape: 'a', mass: 2 }, 'l.json', true)['bodies']).toEqual({ t: { shape: 'a', mass: 2 } });
    expect(() => addRecord(out, 'robot', 'r', [1], 'l.json')).toThrow('l.json: robots.r: expected a robot object, got an array');
    expect(() => addRecord(out, 'robot', '', {}, 'l.json')).toThrow('a robot name must not be empty');
    expect(() => addRecord({ format: 'stackfield-scene/1' }, 'shape', 's', {}, 's.json')).toThrow('s.json: format: expected "stackfield-library/1"');
    expect(() => addRecord({ ...emptyLibrary(), shapes: [] }, 'shape', 's', {}, 'l.json')).toThrow('l.json: shapes: expected an object mapping names to shapes, got an empty array');
  });

  it('removes by name, drops a section left empty, and suggests a near name', () => {
    const lib = { format: 'stackfield-library/1', robots: { walker: { parts: [] }, crawler: { parts: [] } } };
    const one = removeRecord(lib, 'robot', 'walker', 'l.json');
    expect(one).toEqual({ format: 'stackfield-library/1', robots: { crawler: { parts: [] } } });
    expect(removeRecord(one, 'robot', 'crawler', 'l.json')).toEqual({ format: 'stackfield-library/1' });
    expect(() => removeRecord(lib, 'robot', 'walkr', 'l.json')).toThrow('l.json: robots.walkr: unknown robot "walkr" (did you mean "walker"?)');
    expect(lib.robots.walker).toBeDefined();
  });

  it('keeps a record named "__proto__" when another is removed (JSON names are plain keys)', () => {
    const lib = JSON.parse('{"format": "stackfield-library/1", "shapes": {"a": {"type": "box"}, "__proto__": {"type": "sphere"}, "b": {"type": "box"}}}');
    const out = removeRecord(lib, 'shape', 'b', 'l.json');
    expect(Object.keys(out['shapes'] as object)).toEqual(['a', '__proto__']);
    expect(JSON.stringify(out)).toBe('{"format":"stackfield-library/1","shapes":{"a":{"type":"box"},"__proto__":{"type":"sphere"}}}');
  });

  it('reads record kinds, singular or plural', () => {
    expect(['shape', 'materials', 'bodies', 'robot'].map(readRecordKind)).toEqual(['shape', 'material', 'body', 'robot']);
    expect(() => readRecordKind('template')).toThrow('unknown record kind "template"');
  });
});
