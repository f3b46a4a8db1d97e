/**
 * Wavefront OBJ reader: positions and faces only, which is all a rigid body
 * needs (docs/ALGORITHM.md 1). Texture coordinates, normals, groups, materials,
 * smoothing groups, lines and points are recognised and skipped; statements we
 * do not know (free-form curves and surfaces, vendor extensions) are skipped
 * too, with one warning per keyword, because a mesh that still parses is more
 * useful than a refusal, but the user should know something was dropped.
 *
 * Every error is an InputError naming the file, the line and what was expected.
 *
 * Polygons with more than three vertices are fan-triangulated from their first
 * vertex: (v0, v1, v2), (v0, v2, v3), ... That is right for convex (and
 * star-shaped-from-v0) planar polygons, which is what exporters write. For
 * other polygons the fan folds over itself; the mesh topology stays closed, so
 * validateMesh cannot see it, and a warning names the first such face instead.
 *
 * The result is compacted: vertices no face uses are dropped (they would become
 * stray collision samples), so vertex numbering may differ from the file.
 */
import { InputError } from '../errors.ts';
import { compactMesh, type MeshNumbering, type TriMesh } from './mesh.ts';
import { quote } from '../util/echo.ts';

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
  const positions = new GrowF64();
  const indices = new GrowU32();
  const warnings: string[] = [];
  /** Skipped-but-noteworthy content, grouped so a large file gives a few lines, not thousands. */
  const notes = new Map<string, { first: number; count: number }>();
  const note = (what: string, line: number): void => {
    const n = notes.get(what);
    if (n) n.count++;
    else notes.set(what, { first: line, count: 1 });
  };

  // Positive indices may point forward (some writers emit faces first), so
  // their range is checked at the end; this remembers the largest and where.
  let maxIndex = 0;
  let maxIndexLine = 0;
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
            `face vertex index ${raw} is out of range: only ${vertexCount} vertices are defined before this line (valid relative indices -1..-${vertexCount})`,
            file,
            at(line),
          );
        }
      } else {
        v = raw - 1;
        if (raw > maxIndex) {
          maxIndex = raw;
          maxIndexLine = line;
        }
      }
      // A corner equal to the previous one (e.g. a quad written "f 1 2 3 3"
      // for a triangle) adds nothing but a zero-area triangle: drop it.
      if (nc > 0 && corners[nc - 1] === v) {
        note('faces with a repeated consecutive vertex (repeat dropped)', line);
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
      note('faces with a repeated consecutive vertex (repeat dropped)', line);
    }
    if (nc < 3) {
      throw new InputError(`face has only ${nc} distinct vertices; expected at least 3`, file, at(line));
    }
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
        else if (!IGNORED.has(kw)) note(`unsupported statement ${quote(kw)} ignored`, line);
      }
    }
    if (end >= len) break;
    pos = next;
  }

  if (maxIndex > vertexCount) {
    throw new InputError(
      `face vertex index ${maxIndex} is out of range: the file defines ${vertexCount} vertices (valid indices 1..${vertexCount}, or -${vertexCount}..-1)`,
      file,
      `line ${maxIndexLine}`,
    );
  }
  if (faceCount === 0) {
    const what = vertexCount === 0 ? 'the file has no vertices and no faces' : `the file has ${vertexCount} vertices but no faces`;
    // Point at the last line: that is where the missing faces should have been.
    const last = lineNo > 1 && lastLineBlank ? lineNo - 1 : lineNo;
    throw new InputError(`${what}; expected a triangle mesh ("v x y z" lines and "f a b c" lines)`, file, `line ${last}`);
  }

  const folded = countFoldedFans(positions.data, indices.data, polyFirst, polyCount, polyLine);
  if (folded.count > 0) {
    warnings.push(
      `${file}: line ${folded.firstLine}: ${folded.count} polygon face${folded.count === 1 ? ' is' : 's are'} not convex, and fanning ${folded.count === 1 ? 'it' : 'them'} from the first vertex folds triangles over each other; triangulate nonconvex faces in the exporter`,
    );
  }
  const { mesh, dropped, kept } = compactMesh({
    positions: positions.data.slice(0, positions.length),
    indices: indices.data.slice(0, indices.length),
  });
  const vertexNumbers = new Uint32Array(mesh.positions.length / 3);
  for (let v = 0; v < vertexNumbers.length; v++) vertexNumbers[v] = (kept ? kept[v]! : v) + 1;
  const numbering = { vertexNumbers, triangleLines: triangleLine.data.slice(0, triangleLine.length) };
  for (const [what, n] of notes) {
    warnings.push(`${file}: line ${n.first}: ${what}${n.count > 1 ? ` (${n.count} lines)` : ''}`);
  }
  if (dropped > 0) warnings.push(`${file}: ${dropped === 1 ? '1 vertex' : `${dropped} vertices`} used by no face ${dropped === 1 ? 'was' : 'were'} dropped`);
  return { mesh, warnings, numbering };
}

/**
 * Polygon faces whose fan has a triangle facing against the polygon's overall
 * normal (the sum of the fan's cross products, which for a planar polygon is
 * twice its vector area), and the line of the first one.
 */
function countFoldedFans(
  p: Float64Array, idx: Uint32Array, first: GrowU32, count: GrowU32, line: GrowU32,
): { count: number; firstLine: number } {
  let folded = 0;
  let firstLine = 0;
  for (let f = 0; f < first.length; f++) {
    const t0 = first.data[f]!, nt = count.data[f]!;
    let sx = 0, sy = 0, sz = 0;
    for (let pass = 0; pass < 2; pass++) {
      let bad = false;
      for (let t = t0; t < t0 + nt; t++) {
        const a = idx[t * 3]! * 3, b = idx[t * 3 + 1]! * 3, c = idx[t * 3 + 2]! * 3;
        const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
        const vx = p[c]! - p[a]!, vy = p[c + 1]! - p[a + 1]!, vz = p[c + 2]! - p[a + 2]!;
        const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        if (pass === 0) {
          sx += nx; sy += ny; sz += nz;
        } else if (nx * sx + ny * sy + nz * sz < 0) {
          bad = true;
          break;
        }
      }
      if (bad) {
        if (folded++ === 0) firstLine = line.data[f]!;
      }
    }
  }
  return { count: folded, firstLine };
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
