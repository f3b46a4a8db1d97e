/**
 * Wavefront OBJ reader: positions and faces only, which is all a rigid body
 * needs (docs/ALGORITHM.md 1). Texture coordinates, normals, groups, materials,
 * smoothing groups, lines and points are recognised and skipped; statements we
 * do not know (free-form curves and surfaces, vendor extensions) are skipped
 * too, with one warning per keyword (ten named, the rest counted in one), because a mesh that still parses is more
 * useful than a refusal, but the user should know something was dropped.
 *
 * Every error is an InputError naming the file, the line and what was expected.
 *
 * Polygons with more than three vertices are triangulated in their own plane
 * (triangulatePolygons): a fan from the first vertex, (v0, v1, v2),
 * (v0, v2, v3), ..., when that fan is a valid triangulation (every convex
 * polygon, and any polygon whose fan neither folds nor makes a sliver), so
 * such faces give the same triangles as they always have; otherwise ear
 * clipping, which handles nonconvex polygons and collinear corners. A polygon
 * that is not planar or not simple has no right triangulation: it is fanned as
 * before, and a warning names the first such face.
 *
 * The result is compacted: vertices no face uses are dropped (they would become
 * stray collision samples), so vertex numbering may differ from the file.
 */
import { InputError } from '../errors.ts';
import { compactMesh, type MeshNumbering, type TriMesh } from './mesh.ts';
import { fileLabel, quote } from '../util/echo.ts';
import { encodingProblem } from '../util/text.ts';
import * as det from '../util/detmath.ts';

/** Unsupported keywords the warnings name one by one before they count the rest. */
const UNSUPPORTED_TOLD = 10;

export interface ObjResult {
  mesh: TriMesh;
  /** Human-readable notes about skipped content; empty for a plain mesh. */
  warnings: string[];
  /**
   * How the file names what the mesh holds, for messages about it
   * (validateMesh): the OBJ number (from 1) of each mesh vertex, which differs
   * from its index + 1 once unused vertices are dropped, and the line of the
   * face each triangle comes from (a polygon gives several).
   */
  numbering: MeshNumbering;
}

/** Parse an OBJ file into a triangle mesh. `file` is only used in messages. */
export function parseObj(text: string, file: string): TriMesh {
  return parseObjWithWarnings(text, file).mesh;
}

/** Statements that carry nothing a rigid body needs; skipped without a word. */
const IGNORED = new Set([
  'vt', 'vn', 'vp', 'o', 'g', 's', 'usemtl', 'mtllib', 'l', 'p', 'mg',
  'lod', 'usemap', 'maplib', 'bevel', 'c_interp', 'd_interp', 'shadow_obj', 'trace_obj',
]);

const NON_FINITE = /^[+-]?(?:nan|inf|infinity)$/i;

// Character codes the scanner looks at.
const HASH = 35, SLASH = 47, PLUS = 43, MINUS = 45, DOT = 46, ZERO = 48, NINE = 57, LOWER_E = 101, UPPER_E = 69;
const BACKSLASH = 92, CR = 13;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === CR || c === 11 || c === 12;
}

/** Growable typed array, so a million-triangle file does not build boxed JS arrays. */
class GrowF64 {
  data = new Float64Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

class GrowU32 {
  data = new Uint32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

export function parseObjWithWarnings(text: string, file: string): ObjResult {
  if (typeof text !== 'string') throw new InputError(`expected the OBJ file's text (a string), got ${text === null ? 'null' : typeof text}`, file);
  const encoding = encodingProblem(text);
  if (encoding !== null) throw new InputError(encoding, file);
  // Classic Mac OS line endings (a CR alone ends each line, no LF anywhere):
  // read as one line, the second statement was a malformed number of the first.
  if (text.indexOf('\n') < 0 && text.indexOf('\r') >= 0) text = text.replace(/\r/g, '\n');
  const positions = new GrowF64();
  const indices = new GrowU32();
  const warnings: string[] = [];
  /** Skipped-but-noteworthy content, grouped so a large file gives a few lines, not thousands. */
  const notes = new Map<string, { first: number; count: number; unsupported: boolean }>();
  const note = (what: string, line: number, unsupported = false): void => {
    const n = notes.get(what);
    if (n) n.count++;
    else notes.set(what, { first: line, count: 1, unsupported });
  };

  // Positive indices may point forward (some writers emit faces first), so
  // their range is checked at the end; this remembers the largest and where.
  let maxIndex = 0;
  let maxIndexLine = 0;
  // As written: an index of 25 digits is 1e+24 as a number.
  let maxIndexText = '';
  let vertexCount = 0;
  let faceCount = 0;
  // Faces with more than 3 corners: first triangle, triangle count, line.
  const polyFirst = new GrowU32();
  const polyCount = new GrowU32();
  const polyLine = new GrowU32();
  /** The line of each triangle's face. */
  const triangleLine = new GrowU32();
  let corners = new Uint32Array(64); // scratch, reused for every face (grows for huge polygons)

  // The scanner works on character codes of one statement s[a, b) without
  // splitting the file into line and token strings: a million-triangle file
  // would otherwise make tens of millions of short-lived strings.
  let s = text;
  let tokA = 0; // current token is s[tokA, tokB)
  let tokB = 0;
  let lineEnd = 0;
  /** Advance to the next token of the statement; false at its end or at a comment. */
  const nextToken = (): boolean => {
    let i = tokB;
    while (i < lineEnd && isSpace(s.charCodeAt(i))) i++;
    if (i >= lineEnd || s.charCodeAt(i) === HASH) return false;
    tokA = i;
    while (i < lineEnd) {
      const c = s.charCodeAt(i);
      if (isSpace(c) || c === HASH) break;
      i++;
    }
    tokB = i;
    return true;
  };

  const parseVertex = (line: number): void => {
    let n = 0;
    let x = 0, y = 0, z = 0;
    while (nextToken()) {
      n++;
      const v = parseCoordinate(s, tokA, tokB, n, file, line);
      if (n === 1) x = v;
      else if (n === 2) y = v;
      else if (n === 3) z = v;
    }
    if (n < 3) {
      throw new InputError(
        `vertex has ${n} coordinate${n === 1 ? '' : 's'}; expected "v x y z" (optionally followed by w)`,
        file,
        at(line),
      );
    }
    positions.push(x);
    positions.push(y);
    positions.push(z);
    // 4 = x y z w (w is a rational-curve weight, meaningless for a mesh);
    // 6 or 7 = the common vertex-colour extension. Anything else is odd.
    if (n !== 3 && n !== 4 && n !== 6 && n !== 7) note(`vertex lines with ${n} values (only x y z used)`, line);
    vertexCount++;
  };

  const parseFace = (line: number): void => {
    let nc = 0; // corners kept
    let n = 0; // corners read
    let repeated = false; // a corner equal to the one before it was dropped
    while (nextToken()) {
      n++;
      const raw = parseCorner(s, tokA, tokB);
      if (raw === null) {
        throw new InputError(
          `malformed face vertex ${quote(s.slice(tokA, tokB))}; expected v, v/vt, v//vn or v/vt/vn with integer indices`,
          file,
          at(line),
        );
      }
      let v: number;
      if (raw === 0) {
        throw new InputError(
          'face vertex index 0 is invalid; OBJ indices start at 1 (or are negative, counting back from the last vertex)',
          file,
          at(line),
        );
      } else if (raw < 0) {
        v = vertexCount + raw;
        if (v < 0) {
          throw new InputError(
            `face vertex index ${cornerIndexText(s, tokA, tokB)} is out of range: only ${vertexCount} vertices are defined before this line (valid relative indices -1..-${vertexCount})`,
            file,
            at(line),
          );
        }
      } else {
        v = raw - 1;
        if (raw > maxIndex) {
          maxIndex = raw;
          maxIndexLine = line;
          maxIndexText = cornerIndexText(s, tokA, tokB);
        }
      }
      // A corner equal to the previous one (e.g. a quad written "f 1 2 3 3"
      // for a triangle) adds nothing but a zero-area triangle: drop it.
      if (nc > 0 && corners[nc - 1] === v) {
        repeated = true;
        continue;
      }
      if (nc === corners.length) {
        const bigger = new Uint32Array(nc * 2);
        bigger.set(corners);
        corners = bigger;
      }
      corners[nc++] = v;
    }
    if (n < 3) {
      throw new InputError(
        `face has ${n} ${n === 1 ? 'vertex' : 'vertices'}; expected at least 3 ("f v1 v2 v3 ...")`,
        file,
        at(line),
      );
    }
    if (nc > 1 && corners[0] === corners[nc - 1]) {
      nc--;
      repeated = true;
    }
    if (nc < 3) {
      // Fewer than 3 distinct corners ("f 1 1 2"): no area. Kept as one
      // triangle naming a vertex twice, which validateMesh drops with a
      // warning naming its line (docs/meshes.md, "Repairs"); a file of
      // nothing else is refused there.
      indices.push(corners[0]!);
      indices.push(corners[0]!);
      indices.push(corners[nc - 1]!);
      triangleLine.push(line);
      faceCount++;
      return;
    }
    if (repeated) note('faces with a repeated consecutive vertex (repeat dropped)', line);
    if (nc > 3) {
      polyFirst.push(indices.length / 3);
      polyCount.push(nc - 2);
      polyLine.push(line);
    }
    for (let k = 1; k + 1 < nc; k++) {
      indices.push(corners[0]!);
      indices.push(corners[k]!);
      indices.push(corners[k + 1]!);
      triangleLine.push(line);
    }
    faceCount++;
  };

  const len = text.length;
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a UTF-8 byte-order mark is not part of the first statement
  let lineNo = 0;
  let lastLineBlank = true;
  for (;;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = len;
    lineNo++;
    const line = lineNo; // 1-based number of the statement's first physical line
    let next = end + 1;
    s = text;
    let a = pos;
    let b = end;
    // A trailing backslash continues the statement on the next line (rare:
    // only then is a joined copy made).
    if (endsWithBackslash(text, a, b)) {
      let joined = '';
      while (endsWithBackslash(text, a, b) && b < len) {
        joined += text.slice(a, text.lastIndexOf('\\', b - 1)) + ' ';
        a = next;
        b = text.indexOf('\n', a);
        if (b < 0) b = len;
        next = b + 1;
        lineNo++;
      }
      joined += endsWithBackslash(text, a, b) ? text.slice(a, text.lastIndexOf('\\', b - 1)) : text.slice(a, b);
      s = joined;
      a = 0;
      b = joined.length;
      end = next - 1;
    }
    lineEnd = b;
    tokB = a;
    lastLineBlank = !nextToken();
    if (!lastLineBlank) {
      const c0 = s.charCodeAt(tokA);
      const single = tokB - tokA === 1;
      if (single && c0 === 118 /* v */) {
        parseVertex(line);
      } else if (single && c0 === 102 /* f */) {
        parseFace(line);
      } else {
        const kw = s.slice(tokA, tokB);
        if (kw === 'fo') parseFace(line); // old spelling of f
        else if (!IGNORED.has(kw)) note(`unsupported statement ${quote(kw)} ignored`, line, true);
      }
    }
    if (end >= len) break;
    pos = next;
  }

  if (maxIndex > vertexCount) {
    throw new InputError(
      `face vertex index ${maxIndexText} is out of range: the file defines ${vertexCount} vertices (valid indices 1..${vertexCount}, or -${vertexCount}..-1)`,
      file,
      `line ${maxIndexLine}`,
    );
  }
  if (faceCount === 0) {
    // A scene or grid passed where a mesh belongs reads as no vertices at all: say what it is.
    const first = /\S/.exec(text)?.[0];
    if (vertexCount === 0 && (first === '{' || first === '[')) {
      throw new InputError('this is JSON, not a Wavefront OBJ mesh; expected a triangle mesh ("v x y z" lines and "f a b c" lines)', file, 'line 1');
    }
    // An ASCII STL file ("solid NAME", "facet normal ...", "vertex x y z") has no OBJ lines at all.
    if (vertexCount === 0 && /^\s*solid\b/.test(text) && /^\s*vertex\s/m.test(text)) {
      throw new InputError('this is an STL file, not a Wavefront OBJ mesh: only OBJ is read (convert it, e.g. in Blender or MeshLab)', file, 'line 1');
    }
    const what = vertexCount === 0 ? 'the file has no vertices and no faces' : `the file has ${vertexCount} vertices but no faces`;
    // Point at the last line: that is where the missing faces should have been.
    const last = lineNo > 1 && lastLineBlank ? lineNo - 1 : lineNo;
    throw new InputError(`${what}; expected a triangle mesh ("v x y z" lines and "f a b c" lines)`, file, `line ${last}`);
  }

  triangulatePolygons(positions.data, indices.data, polyFirst, polyCount, polyLine, note);
  const { mesh, dropped, kept } = compactMesh({
    positions: positions.data.slice(0, positions.length),
    indices: indices.data.slice(0, indices.length),
  });
  const vertexNumbers = new Uint32Array(mesh.positions.length / 3);
  for (let v = 0; v < vertexNumbers.length; v++) vertexNumbers[v] = (kept ? kept[v]! : v) + 1;
  const numbering = { vertexNumbers, triangleLines: triangleLine.data.slice(0, triangleLine.length) };
  // Unsupported keywords named one by one up to UNSUPPORTED_TOLD, then counted:
  // a file of 100 000 vendor keywords gave 100 000 lines.
  let told = 0, moreKeywords = 0, moreLines = 0, moreFirst = 0;
  for (const [what, n] of notes) {
    if (n.unsupported && told++ >= UNSUPPORTED_TOLD) {
      if (moreKeywords++ === 0) moreFirst = n.first;
      moreLines += n.count;
      continue;
    }
    warnings.push(`${fileLabel(file)}: line ${n.first}: ${what}${n.count > 1 ? ` (${n.count} lines)` : ''}`);
  }
  if (moreKeywords > 0) {
    warnings.push(`${fileLabel(file)}: line ${moreFirst}: ${moreKeywords} more unsupported keyword${moreKeywords === 1 ? '' : 's'} ignored (on ${moreLines} line${moreLines === 1 ? '' : 's'})`);
  }
  if (dropped > 0) warnings.push(`${fileLabel(file)}: ${dropped === 1 ? '1 vertex' : `${dropped} vertices`} used by no face ${dropped === 1 ? 'was' : 'were'} dropped`);
  return { mesh, warnings, numbering };
}

/**
 * How far a corner may lie from a polygon face's plane, as a fraction of the
 * polygon's size (its bounding-box diagonal), before the face counts as not
 * planar. Exporters write about 6 significant digits, so a small face of a
 * large model is off its plane by some 10^-4 of its size from rounding alone;
 * below 10^-3 the choice of diagonals changes the solid by less than 10^-3 of
 * the face's area times its size.
 */
const PLANAR_TOLERANCE = 1e-3;
/**
 * A corner, or a triangle, counts as flat when twice its area is at most this
 * fraction of its longest edge squared: collinear corners are not ears, and a
 * fan with such a sliver is not used. 100 times validateMesh's
 * degenerate-triangle bound (10^-12), so no triangle made here is refused there.
 */
const FLAT = 1e-10;
/** Most corners a polygon may have for ear clipping (quadratic or worse in them); a larger one that the fan cannot take is fanned, with a warning. */
const MAX_EAR_CLIP = 4096;

/** Why a polygon face was fanned although its fan is not a valid triangulation (the warning's words). */
const NOT_PLANAR = `polygon face not planar (a corner more than ${PLANAR_TOLERANCE} of the face's size off its plane), fanned from its first vertex, which may fold; triangulate such faces in the exporter`;
const NOT_SIMPLE = 'polygon face not simple (edges cross or touch, or it encloses no area), fanned from its first vertex, which folds; fix such faces in the exporter';
const TOO_LARGE = `nonconvex polygon face of more than ${MAX_EAR_CLIP} corners, fanned from its first vertex, which may fold; triangulate such faces in the exporter`;
const NOT_CLIPPED = 'polygon face that ear clipping could not triangulate (nearly self-touching), fanned from its first vertex, which may fold; triangulate such faces in the exporter';

/** Scratch for triangulatePolygons, grown to the largest polygon. */
let polyIds = new Uint32Array(64);
let polyX = new Float64Array(64);
let polyY = new Float64Array(64);
let polyNext = new Int32Array(64);
let polyPrev = new Int32Array(64);
let polyOut = new Uint32Array(64 * 3);

/**
 * Re-triangulate the faces of more than three corners, which the parser wrote
 * as fans from their first vertex (the fan of face f is its count[f] triangles
 * from triangle first[f]; positions are only known once the whole file is
 * read, since faces may name vertices defined after them). A face keeps its
 * fan when the fan is a valid triangulation of the face in its plane; else it
 * is ear-clipped there, into the same number of triangles, written over the
 * fan. Not planar or not simple faces keep the fan, and `note` records why.
 */
function triangulatePolygons(
  p: Float64Array, idx: Uint32Array, first: GrowU32, count: GrowU32, line: GrowU32,
  note: (what: string, line: number) => void,
): void {
  for (let f = 0; f < first.length; f++) {
    const t0 = first.data[f]!, nt = count.data[f]!, n = nt + 2;
    if (n > polyIds.length) {
      const m = Math.max(n, polyIds.length * 2);
      polyIds = new Uint32Array(m);
      polyX = new Float64Array(m);
      polyY = new Float64Array(m);
      polyNext = new Int32Array(m);
      polyPrev = new Int32Array(m);
      polyOut = new Uint32Array(m * 3);
    }
    const ids = polyIds;
    ids[0] = idx[t0 * 3]!;
    ids[1] = idx[t0 * 3 + 1]!;
    for (let k = 0; k < nt; k++) ids[k + 2] = idx[(t0 + k) * 3 + 2]!;
    const why = triangulatePolygon(p, ids, n);
    if (why === null) {
      for (let k = 0; k < nt * 3; k++) idx[t0 * 3 + k] = ids[polyOut[k]!]!;
    } else if (why !== '') {
      note(why, line.data[f]!);
    }
  }
}

/**
 * Triangulate one polygon (corners ids[0, n)) into polyOut (triples of corner
 * numbers, each turning the way the polygon does) and return null; or return
 * '' when the fan from the first corner is valid and is kept, or the reason it
 * is kept although it is not.
 */
function triangulatePolygon(p: Float64Array, ids: Uint32Array, n: number): string | null {
  // Centroid and size.
  let cx = 0, cy = 0, cz = 0;
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = 0; i < n; i++) {
    const a = ids[i]! * 3;
    const x = p[a]!, y = p[a + 1]!, z = p[a + 2]!;
    cx += x; cy += y; cz += z;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    if (z < z0) z0 = z;
    if (z > z1) z1 = z;
  }
  cx /= n; cy /= n; cz /= n;
  const size = Math.sqrt((x1 - x0) ** 2 + (y1 - y0) ** 2 + (z1 - z0) ** 2);
  // Newell's normal (twice the vector area), from coordinates about the centroid.
  let nx = 0, ny = 0, nz = 0;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const a = ids[j]! * 3, b = ids[i]! * 3;
    const ax = p[a]! - cx, ay = p[a + 1]! - cy, az = p[a + 2]! - cz;
    const bx = p[b]! - cx, by = p[b + 1]! - cy, bz = p[b + 2]! - cz;
    nx += (ay - by) * (az + bz);
    ny += (az - bz) * (ax + bx);
    nz += (ax - bx) * (ay + by);
  }
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(len > FLAT * size * size)) return NOT_SIMPLE; // no area (or no size): no plane to work in
  nx /= len; ny /= len; nz /= len;
  // An orthonormal basis (u, v) of the plane with u x v = n, so the polygon
  // runs counter-clockwise in (u, v) coordinates.
  let ux: number, uy: number, uz: number;
  if (Math.abs(nx) <= Math.abs(ny) && Math.abs(nx) <= Math.abs(nz)) {
    ux = 0; uy = nz; uz = -ny; // x-axis cross n
  } else if (Math.abs(ny) <= Math.abs(nz)) {
    ux = -nz; uy = 0; uz = nx; // y-axis cross n
  } else {
    ux = ny; uy = -nx; uz = 0; // z-axis cross n
  }
  const ul = Math.sqrt(ux * ux + uy * uy + uz * uz);
  ux /= ul; uy /= ul; uz /= ul;
  const vx = ny * uz - nz * uy, vy = nz * ux - nx * uz, vz = nx * uy - ny * ux;
  const X = polyX, Y = polyY;
  let off = 0;
  for (let i = 0; i < n; i++) {
    const a = ids[i]! * 3;
    const dx = p[a]! - cx, dy = p[a + 1]! - cy, dz = p[a + 2]! - cz;
    off = Math.max(off, Math.abs(dx * nx + dy * ny + dz * nz));
    X[i] = dx * ux + dy * uy + dz * uz;
    Y[i] = dx * vx + dy * vy + dz * vz;
  }
  if (off > PLANAR_TOLERANCE * size) return NOT_PLANAR;

  // The fan from corner 0 is a triangulation when each of its triangles turns
  // counter-clockwise and is no sliver, and together they go round corner 0
  // less than once: then the other corners are in angular order about it.
  // (Two such triangles, a quad's, cannot go round once: each turns by less
  // than half.)
  let fanOk = true;
  let turn = 0;
  for (let k = 1; k + 1 < n && fanOk; k++) {
    const cross = orient2(X[0]!, Y[0]!, X[k]!, Y[k]!, X[k + 1]!, Y[k + 1]!);
    if (!(cross > FLAT * longestEdge2(X, Y, 0, k, k + 1))) fanOk = false;
    if (n > 4) {
      const dot = (X[k]! - X[0]!) * (X[k + 1]! - X[0]!) + (Y[k]! - Y[0]!) * (Y[k + 1]! - Y[0]!);
      turn += det.atan2(cross, dot);
    }
  }
  if (fanOk && turn < 2 * Math.PI - 1e-9) return '';
  if (n > MAX_EAR_CLIP) return TOO_LARGE;
  if (!isSimple(X, Y, n)) return NOT_SIMPLE;
  return earClipInto(X, Y, n) ? null : NOT_CLIPPED;
}

/** Twice the signed area of (a, b, c): positive when they turn counter-clockwise. */
function orient2(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

function longestEdge2(X: Float64Array, Y: Float64Array, a: number, b: number, c: number): number {
  const ab = (X[b]! - X[a]!) ** 2 + (Y[b]! - Y[a]!) ** 2;
  const bc = (X[c]! - X[b]!) ** 2 + (Y[c]! - Y[b]!) ** 2;
  const ca = (X[a]! - X[c]!) ** 2 + (Y[a]! - Y[c]!) ** 2;
  return Math.max(ab, bc, ca);
}

/**
 * Is the closed polygon simple: no two edges meet except neighbours at their
 * shared corner, and no corner turns straight back along its edge?
 */
function isSimple(X: Float64Array, Y: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) {
    const i1 = (i + 1) % n;
    const ax = X[i]!, ay = Y[i]!, bx = X[i1]!, by = Y[i1]!;
    if (ax === bx && ay === by) return false;
    // Neighbour edge (i1, i2): only a turn straight back makes them overlap.
    const i2 = (i1 + 1) % n;
    const cross = orient2(ax, ay, bx, by, X[i2]!, Y[i2]!);
    const dot = (bx - ax) * (X[i2]! - bx) + (by - ay) * (Y[i2]! - by);
    if (Math.abs(cross) <= FLAT * longestEdge2(X, Y, i, i1, i2) && dot < 0) return false;
    for (let j = i + 2; j < n; j++) {
      const j1 = (j + 1) % n;
      if (j1 === i) continue; // the other neighbour
      if (segmentsMeet(ax, ay, bx, by, X[j]!, Y[j]!, X[j1]!, Y[j1]!)) return false;
    }
  }
  return true;
}

/** Do the closed segments ab and cd have a point in common? */
function segmentsMeet(
  ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number,
): boolean {
  const d1 = Math.sign(orient2(ax, ay, bx, by, cx, cy));
  const d2 = Math.sign(orient2(ax, ay, bx, by, dx, dy));
  const d3 = Math.sign(orient2(cx, cy, dx, dy, ax, ay));
  const d4 = Math.sign(orient2(cx, cy, dx, dy, bx, by));
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  const on = (px: number, py: number, qx: number, qy: number, rx: number, ry: number): boolean =>
    Math.min(px, qx) <= rx && rx <= Math.max(px, qx) && Math.min(py, qy) <= ry && ry <= Math.max(py, qy);
  return (d1 === 0 && on(ax, ay, bx, by, cx, cy)) || (d2 === 0 && on(ax, ay, bx, by, dx, dy)) ||
    (d3 === 0 && on(cx, cy, dx, dy, ax, ay)) || (d4 === 0 && on(cx, cy, dx, dy, bx, by));
}

/**
 * Ear clipping of a simple counter-clockwise polygon into polyOut: repeatedly
 * cut off a convex corner (not a flat one: collinear corners are left for a
 * later ear, so no triangle is a sliver) whose triangle holds no other corner.
 * False when a full lap finds no ear, which only rounding on an almost
 * self-touching polygon can cause.
 */
function earClipInto(X: Float64Array, Y: Float64Array, n: number): boolean {
  const next = polyNext, prev = polyPrev, out = polyOut;
  for (let i = 0; i < n; i++) {
    next[i] = (i + 1) % n;
    prev[i] = (i + n - 1) % n;
  }
  let o = 0;
  let remaining = n;
  let i = 0;
  let sinceEar = 0;
  while (remaining > 3) {
    const a = prev[i]!, c = next[i]!;
    if (isEar(X, Y, next, a, i, c)) {
      out[o++] = a; out[o++] = i; out[o++] = c;
      next[a] = c;
      prev[c] = a;
      remaining--;
      sinceEar = 0;
      i = a; // a's corner changed: it may be an ear now
    } else {
      i = c;
      if (++sinceEar > remaining) return false;
    }
  }
  const a = prev[i]!, c = next[i]!;
  if (!(orient2(X[a]!, Y[a]!, X[i]!, Y[i]!, X[c]!, Y[c]!) > FLAT * longestEdge2(X, Y, a, i, c))) return false;
  out[o++] = a; out[o++] = i; out[o++] = c;
  return true;
}

function isEar(X: Float64Array, Y: Float64Array, next: Int32Array, a: number, b: number, c: number): boolean {
  const ax = X[a]!, ay = Y[a]!, bx = X[b]!, by = Y[b]!, cx = X[c]!, cy = Y[c]!;
  if (!(orient2(ax, ay, bx, by, cx, cy) > FLAT * longestEdge2(X, Y, a, b, c))) return false; // reflex or flat
  // No other remaining corner may lie inside the triangle or on it.
  for (let v = next[c]!; v !== a; v = next[v]!) {
    const px = X[v]!, py = Y[v]!;
    if (orient2(ax, ay, bx, by, px, py) >= 0 && orient2(bx, by, cx, cy, px, py) >= 0 && orient2(cx, cy, ax, ay, px, py) >= 0) {
      return false;
    }
  }
  return true;
}

/** The `where` of an error on a line. */
function at(line: number): string {
  return `line ${line}`;
}

/** Does s[a, b) end with a backslash (before an optional CR)? */
function endsWithBackslash(s: string, a: number, b: number): boolean {
  let i = b - 1;
  if (i >= a && s.charCodeAt(i) === CR) i--;
  return i >= a && s.charCodeAt(i) === BACKSLASH;
}

/** The vertex index of a well-formed face corner s[a, b) as written (its digits before any '/'). */
function cornerIndexText(s: string, a: number, b: number): string {
  // Scanned within the corner: indexOf from a would search the rest of the
  // file for a corner without a slash, a time quadratic in the file's size.
  let i = a;
  while (i < b && s.charCodeAt(i) !== SLASH) i++;
  return s.slice(a, i);
}

/**
 * The vertex index of a face corner s[a, b) in the form v, v/vt, v//vn or
 * v/vt/vn (integers, optionally signed; vt and vn may be empty), or null when
 * the corner is malformed. Only v is returned: texture and normal indices are
 * checked for form and otherwise ignored.
 */
function parseCorner(s: string, a: number, b: number): number | null {
  let i = a;
  let neg = false;
  let c = s.charCodeAt(i);
  if (c === PLUS || c === MINUS) {
    neg = c === MINUS;
    i++;
  }
  const d0 = i;
  let v = 0;
  while (i < b && (c = s.charCodeAt(i)) >= ZERO && c <= NINE) {
    v = v * 10 + (c - ZERO);
    i++;
  }
  if (i === d0) return null;
  for (let part = 0; part < 2 && i < b; part++) {
    if (s.charCodeAt(i) !== SLASH) return null;
    i++;
    c = s.charCodeAt(i);
    if (i < b && (c === PLUS || c === MINUS)) {
      i++;
      c = s.charCodeAt(i);
      if (!(i < b && c >= ZERO && c <= NINE)) return null; // a sign needs digits
    }
    while (i < b && (c = s.charCodeAt(i)) >= ZERO && c <= NINE) i++;
  }
  if (i !== b) return null;
  return neg ? -v : v;
}

/**
 * Strictly parse one vertex value s[a, b); the k-th value (1-based) is named in
 * errors. Number() alone would accept "0x10", "Infinity" and "1_0"-like forms;
 * only digits, sign, point and exponent are allowed here.
 */
function parseCoordinate(s: string, a: number, b: number, k: number, file: string, line: number): number {
  const fast = parseDecimalFast(s, a, b);
  if (fast === fast) return fast; // not NaN
  let plain = true;
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= ZERO && c <= NINE) || c === DOT || c === PLUS || c === MINUS || c === LOWER_E || c === UPPER_E)) {
      plain = false;
      break;
    }
  }
  const x = plain ? Number(s.slice(a, b)) : NaN;
  if (Number.isFinite(x)) return x;
  const where = at(line);
  const tok = s.slice(a, b);
  const name = k <= 3 ? 'xyz'[k - 1]! : k === 4 ? 'w' : `value ${k}`;
  if (NON_FINITE.test(tok)) {
    throw new InputError(`vertex ${name} coordinate is ${quote(tok)}; expected a finite number`, file, where);
  }
  if (plain && !Number.isNaN(x)) {
    throw new InputError(`vertex ${name} coordinate ${quote(tok)} overflows; expected a finite number`, file, where);
  }
  throw new InputError(
    `malformed number ${quote(tok)} for vertex ${name} coordinate; expected a decimal number such as 1.5 or -2e-3`,
    file,
    where,
  );
}

/** Exact powers of ten up to 1e22 (all representable as doubles). */
const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/**
 * Fast path for the usual "-0.123456" or "1.5e-3": when the digits form an
 * integer m < 2^53 and the decimal exponent e has |e| <= 22, m * 10^e (or
 * m / 10^-e) is one correctly rounded operation on exact operands, hence the
 * same double Number() would give (Clinger's fast path). Returns NaN when the
 * token does not fit, and the caller falls back to Number().
 */
function parseDecimalFast(s: string, a: number, b: number): number {
  let i = a;
  let c = s.charCodeAt(i);
  let neg = false;
  if (c === MINUS || c === PLUS) {
    neg = c === MINUS;
    i++;
  }
  let m = 0;
  let digits = 0;
  let scale = 0;
  while (i < b && (c = s.charCodeAt(i)) >= ZERO && c <= NINE) {
    m = m * 10 + (c - ZERO);
    digits++;
    i++;
  }
  if (i < b && c === DOT) {
    i++;
    while (i < b && (c = s.charCodeAt(i)) >= ZERO && c <= NINE) {
      m = m * 10 + (c - ZERO);
      digits++;
      scale--;
      i++;
    }
  }
  if (digits === 0) return NaN;
  if (i < b && (c === LOWER_E || c === UPPER_E)) {
    i++;
    let eneg = false;
    c = s.charCodeAt(i);
    if (i < b && (c === MINUS || c === PLUS)) {
      eneg = c === MINUS;
      i++;
    }
    let e = 0;
    const e0 = i;
    while (i < b && (c = s.charCodeAt(i)) >= ZERO && c <= NINE && e < 1000) {
      e = e * 10 + (c - ZERO);
      i++;
    }
    if (i === e0) return NaN;
    scale += eneg ? -e : e;
  }
  if (i !== b || m > 9007199254740991 || scale < -22 || scale > 22) return NaN;
  const x = scale < 0 ? m / POW10[-scale]! : m * POW10[scale]!;
  return neg ? -x : x;
}
