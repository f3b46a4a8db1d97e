/**
 * Scene input from the file system for Node (the command line and the
 * package's API): mesh files read with a size cap and errors that name the
 * path, warnings on standard error.
 */
import { readFile, stat } from 'node:fs/promises';
import { InputError } from '../errors.ts';
import type { SceneIo } from '../scene/shapeBuild.ts';
import { checkPathText, describeFsError, kindOfFile, readPipe, tooLarge } from '../scene/load.ts';
import { decodeUtf8 } from '../util/text.ts';
import { say } from './output.ts';

/** The largest mesh file read: an OBJ this size has some ten million triangles, far past the default limit. */
const MAX_MESH_BYTES = 512 * 1024 * 1024;

/**
 * A binary STL file: an 80-byte header (often starting "solid", as an ASCII
 * STL does), a little-endian triangle count n, and n records of 50 bytes.
 */
function isBinaryStl(bytes: Uint8Array): boolean {
  if (bytes.length < 84) return false;
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
  return bytes.length === 84 + 50 * n;
}

/** Mesh bytes -> text: UTF-8 checked, a binary STL named as one (its bytes are not text, and "save it as UTF-8" would be the wrong advice). */
function meshText(bytes: Uint8Array, path: string): string {
  if (isBinaryStl(bytes)) {
    throw new InputError('this is a binary STL file, not a Wavefront OBJ mesh: only OBJ is read (convert it, e.g. in Blender or MeshLab)', path);
  }
  return decodeUtf8(bytes, path);
}

export async function readMeshText(path: string): Promise<string> {
  let size: number;
  try {
    checkPathText(path, 'mesh file');
    const st = await stat(path);
    // A named pipe (a shell's <(...)) is read as it comes, up to the same size; a device would be read for ever.
    if (st.isFIFO()) return meshText(await readPipe(path, 'mesh file', MAX_MESH_BYTES), path);
    if (!st.isFile()) throw new InputError(`is ${kindOfFile(st)}, not a mesh file`, path);
    size = st.size;
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(describeFsError(e, 'mesh file'), path);
  }
  if (size > MAX_MESH_BYTES) {
    throw new InputError(`${tooLarge('mesh file', size, MAX_MESH_BYTES)} (simplify the mesh)`, path);
  }
  let bytes: Uint8Array;
  try {
    // The file may still fail to open (no read permission: stat needs none).
    bytes = await readFile(path);
  } catch (e) {
    throw new InputError(describeFsError(e, 'mesh file'), path);
  }
  return meshText(bytes, path);
}

/** Scene input for Node: mesh files from disk, warnings on standard error (escaped). */
export function nodeSceneIo(warn = (m: string) => say(`stackfield: warning: ${m}`)): SceneIo {
  return { readText: readMeshText, warn };
}
