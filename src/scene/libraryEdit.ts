/**
 * Adding and removing a library's records (docs/LIBRARY_FORMAT.md, "Editing
 * a library"): seed 003 4.3's database, where bodies and robots are added and
 * deleted by name. Pure functions over the parsed JSON; the command line
 * (`stackfield lib add/remove`) and the app's editor check the result as
 * `stackfield check` does before anything is written.
 */
import { InputError } from '../errors.ts';
import { LIBRARY_FORMAT_ID } from './library.ts';
import { childPath, describeValue, has, unknownName, type JsonObject } from './reader.ts';
import { quote } from '../util/echo.ts';
import { didYouMean } from '../util/suggest.ts';

/** The kinds of record a library holds, as the command line names them, and the section each lives in. */
export const RECORD_SECTIONS = { shape: 'shapes', material: 'materials', body: 'bodies', robot: 'robots' } as const;
export type RecordKind = keyof typeof RECORD_SECTIONS;
export const RECORD_KINDS = Object.keys(RECORD_SECTIONS) as RecordKind[];

/** The words the records' kinds are named by in messages. */
const KIND_WORD: Record<RecordKind, string> = { shape: 'shape', material: 'material', body: 'body template', robot: 'robot' };

/** An empty library. */
export function emptyLibrary(): JsonObject {
  return { format: LIBRARY_FORMAT_ID };
}

/** The section `kind` of `lib` as an object, or an error naming the file and section. */
function section(lib: JsonObject, kind: RecordKind, file: string): JsonObject | undefined {
  const key = RECORD_SECTIONS[kind];
  if (!has(lib, key)) return undefined;
  const v = lib[key];
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InputError(`expected an object mapping names to ${KIND_WORD[kind]}s, got ${describeValue(v)}`, file, key);
  return v as JsonObject;
}

/**
 * `lib` with record `name` of `kind` set to `value` (a new object: `lib`
 * is not changed). A record of that name is replaced only with `force`;
 * otherwise it is an error naming where it is. Sections keep their order;
 * a new section goes after the existing ones.
 */
export function addRecord(lib: JsonObject, kind: RecordKind, name: string, value: unknown, file: string, force = false): JsonObject {
  if (lib['format'] !== LIBRARY_FORMAT_ID) {
    throw new InputError(`expected "${LIBRARY_FORMAT_ID}" (records are added to libraries only; a scene includes a library), got ${describeValue(lib['format'])}`, file, 'format');
  }
  const key = RECORD_SECTIONS[kind];
  const where = childPath(key, name);
  if (name.length === 0) throw new InputError(`a ${KIND_WORD[kind]} name must not be empty`, file, where);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(`expected a ${KIND_WORD[kind]} object, got ${describeValue(value)}`, file, where);
  }
  const old = section(lib, kind, file) ?? {};
  if (has(old, name) && !force) {
    throw new InputError(`${KIND_WORD[kind]} ${quote(name)} is already defined here; give --force to replace it`, file, where);
  }
  return { ...lib, [key]: { ...old, [name]: value } };
}

/**
 * `lib` without record `name` of `kind` (a new object); an unknown name is
 * an error with a suggestion. A section left empty is dropped.
 */
export function removeRecord(lib: JsonObject, kind: RecordKind, name: string, file: string): JsonObject {
  const key = RECORD_SECTIONS[kind];
  const old = section(lib, kind, file) ?? {};
  if (!has(old, name)) {
    throw new InputError(unknownName(KIND_WORD[kind], name, Object.keys(old)), file, childPath(key, name));
  }
  // Own properties made as data (fromEntries), not assigned: `rest["__proto__"] = v`
  // would set the prototype and drop a record of that name.
  const rest: JsonObject = Object.fromEntries(Object.entries(old).filter(([k]) => k !== name));
  const out: JsonObject = { ...lib };
  if (Object.keys(rest).length > 0) out[key] = rest;
  else delete out[key];
  return out;
}

/** A record kind from the command line ("shape", "material", "body", "robot"; plurals too), or an error. */
export function readRecordKind(word: string): RecordKind {
  const w = word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.replace(/s$/, '');
  if ((RECORD_KINDS as string[]).includes(w)) return w as RecordKind;
  throw new InputError(`unknown record kind ${quote(word)}${didYouMean(word, RECORD_KINDS)}; expected shape, material, body or robot`, undefined, 'command line');
}
