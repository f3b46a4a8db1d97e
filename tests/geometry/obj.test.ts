import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { parseObj, parseObjWithWarnings } from '../../src/geometry/obj.ts';
import { signedVolume } from '../../src/geometry/mesh.ts';
import { validateMesh } from '../../src/geometry/validate.ts';
import { analyseSolid } from '../../src/sdf/solid.ts';

/** Unit tetrahedron, outward: the reference every face format must reproduce. */
const TET_V = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 0 0 1'];
const TET_F = [[1, 3, 2], [1, 2, 4], [2, 3, 4], [1, 4, 3]];

function tetObj(corner: (v: number) => string): string {
  return [...TET_V, ...TET_F.map((f) => 'f ' + f.map(corner).join(' '))].join('\n') + '\n';
}

/** Run `fn`, require an InputError naming `file` and `where`, and return its message. */
function inputError(fn: () => unknown, file: string, where: string): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    const err = e as InputError;
    expect(err.file).toBe(file);
    expect(err.where).toBe(where);
    expect(err.message.startsWith(`${file}: ${where}: `)).toBe(true);
    return err.message;
  }
  throw new Error('expected an InputError, nothing was thrown');
}

describe('parseObj face formats', () => {
  const reference = parseObj(tetObj((v) => `${v}`), 'tet.obj');

  it('reads a plain triangle mesh with 0-based indices and positions', () => {
    expect(Array.from(reference.indices)).toEqual(TET_F.flat().map((v) => v - 1));
    expect(Array.from(reference.positions)).toEqual([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect(signedVolume(reference)).toBeCloseTo(1 / 6, 14);
  });

  it.each([
    ['v/vt', (v: number) => `${v}/${v}`],
    ['v//vn', (v: number) => `${v}//${v}`],
    ['v/vt/vn', (v: number) => `${v}/${v}/${v}`],
    ['v/vt/ (empty normal)', (v: number) => `${v}/${v}/`],
  ])('reads %s corners exactly like plain indices', (_name, corner) => {
    const m = parseObj(tetObj(corner), 'tet.obj');
    expect(Array.from(m.indices)).toEqual(Array.from(reference.indices));
    expect(Array.from(m.positions)).toEqual(Array.from(reference.positions));
  });

  it('resolves negative indices relative to the vertices defined so far', () => {
    // Each face comes right after the vertices, so -4..-1 are vertices 1..4.
    const text = [...TET_V, ...TET_F.map((f) => 'f ' + f.map((v) => `${v - 5}`).join(' '))].join('\n');
    const m = parseObj(text, 'rel.obj');
    expect(Array.from(m.indices)).toEqual(Array.from(reference.indices));
  });

  it('resolves negative indices against the count at that line, not the file total', () => {
    // Two tetrahedra; the second one's faces use -4..-1 = vertices 5..8.
    const second = ['v 5 0 0', 'v 6 0 0', 'v 5 1 0', 'v 5 0 1'];
    const text = [
      ...TET_V, ...TET_F.map((f) => 'f ' + f.map((v) => `${v - 5}`).join(' ')),
      ...second, ...TET_F.map((f) => 'f ' + f.map((v) => `${v - 5}`).join(' ')),
    ].join('\n');
    const m = parseObj(text, 'two.obj');
    expect(Array.from(m.indices.slice(12))).toEqual(TET_F.flat().map((v) => v + 3));
    expect(validateMesh(m, 'two.obj').warnings).toEqual([]);
  });

  it('fan-triangulates quads into a closed unit cube of volume 1', () => {
    const text = `
# unit cube with quad faces
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
`;
    const r = parseObjWithWarnings(text, 'cube.obj');
    expect(r.warnings).toEqual([]);
    const m = r.mesh;
    expect(m.indices.length / 3).toBe(12);
    const v = validateMesh(m, 'cube.obj');
    expect(v.warnings).toEqual([]);
    expect(signedVolume(v.mesh)).toBeCloseTo(1, 14);
    // The fan of "f 1 4 3 2" is (1,4,3), (1,3,2).
    expect(Array.from(m.indices.slice(0, 6))).toEqual([0, 3, 2, 0, 2, 1]);
  });

  it('fans an n-gon into n-2 triangles sharing its first vertex', () => {
    const hex = Array.from({ length: 6 }, (_, k) => `v ${Math.cos(k)} ${Math.sin(k)} 0`);
    const m = parseObj([...hex, 'f 1 2 3 4 5 6'].join('\n'), 'hex.obj');
    expect(Array.from(m.indices)).toEqual([0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5]);
  });

  it('ear-clips a nonconvex polygon whose fan from the first vertex would fold, keeping its winding', () => {
    // An L-shaped hexagon, counter-clockwise; fanning from (2, 1) folds, from (0, 0) it does not.
    const v = ['v 2 1 0', 'v 1 1 0', 'v 1 2 0', 'v 0 2 0', 'v 0 0 0', 'v 2 0 0'];
    const clipped = parseObjWithWarnings([...v, 'f 1 2 3 4 5 6'].join('\n'), 'l.obj');
    expect(clipped.warnings).toEqual([]);
    const m = clipped.mesh;
    expect(m.indices.length).toBe(12);
    let area = 0;
    for (let t = 0; t < 4; t++) {
      const [a, b, c] = [0, 1, 2].map((k) => m.indices[t * 3 + k]! * 3);
      const z = (m.positions[b!]! - m.positions[a!]!) * (m.positions[c! + 1]! - m.positions[a! + 1]!) -
        (m.positions[b! + 1]! - m.positions[a! + 1]!) * (m.positions[c!]! - m.positions[a!]!);
      expect(z).toBeGreaterThan(0); // every triangle faces +z, like the polygon
      area += z / 2;
    }
    expect(area).toBeCloseTo(3, 14); // no overlap: the triangles' areas add up to the L's
    // The fan from (0, 0) is valid, so that face keeps it.
    const fanned = parseObjWithWarnings([...v, 'f 5 6 1 2 3 4'].join('\n'), 'l.obj');
    expect(fanned.warnings).toEqual([]);
    expect(Array.from(fanned.mesh.indices)).toEqual([4, 5, 0, 4, 0, 1, 4, 1, 2, 4, 2, 3]);
  });

  it('reads an L prism with two nonconvex hexagon caps as exactly its volume, without warnings', () => {
    // The L of the issue: area 0.51, depth 0.3, volume 0.153 (the fan from the first corner gave 0.1567).
    const L = [[1, 0.3], [0.3, 0.3], [0.3, 1], [0, 1], [0, 0], [1, 0]];
    const text = [
      ...L.map(([x, y]) => `v ${x} ${y} 0`),
      ...L.map(([x, y]) => `v ${x} ${y} 0.3`),
      'f 6 5 4 3 2 1', // bottom, facing -z
      'f 7 8 9 10 11 12', // top, facing +z
      ...L.map((_, i) => { const j = (i + 1) % 6; return `f ${i + 1} ${j + 1} ${j + 7} ${i + 7}`; }),
    ].join('\n');
    const r = parseObjWithWarnings(text, 'lprism.obj');
    expect(r.warnings).toEqual([]);
    const v = validateMesh(r.mesh, 'lprism.obj');
    expect(v.warnings).toEqual([]);
    const exact = (1 * 1 - 0.7 * 0.7) * 0.3;
    expect(Math.abs(signedVolume(v.mesh) - exact) / exact).toBeLessThan(1e-9);
    const solid = analyseSolid(v.mesh);
    expect(solid.simple).toBe(true); // no folded triangles crossing each other
    expect(Math.abs(solid.mass.volume - exact) / exact).toBeLessThan(1e-9);
  });

  it('ear-clips a polygon with collinear corners without slivers', () => {
    // A 2 x 1 rectangle with extra corners along its long sides; the fan from (0, 0) would make a flat triangle.
    const v = ['v 0 0 0', 'v 1 0 0', 'v 2 0 0', 'v 2 1 0', 'v 1 1 0', 'v 0 1 0'];
    const r = parseObjWithWarnings([...v, 'f 1 2 3 4 5 6'].join('\n'), 'rect.obj');
    expect(r.warnings).toEqual([]);
    const m = r.mesh;
    let area = 0;
    for (let t = 0; t < m.indices.length / 3; t++) {
      const [a, b, c] = [0, 1, 2].map((k) => m.indices[t * 3 + k]! * 3);
      const z = (m.positions[b!]! - m.positions[a!]!) * (m.positions[c! + 1]! - m.positions[a! + 1]!) -
        (m.positions[b! + 1]! - m.positions[a! + 1]!) * (m.positions[c!]! - m.positions[a!]!);
      expect(z).toBeGreaterThan(0.1);
      area += z / 2;
    }
    expect(area).toBeCloseTo(2, 14);
  });

  it('triangulates a tilted nonconvex polygon in its own plane', () => {
    // The L hexagon rotated out of every axis plane: the triangles still tile it.
    const c = Math.cos(0.7), s = Math.sin(0.7);
    const pts = [[2, 1], [1, 1], [1, 2], [0, 2], [0, 0], [2, 0]].map(([x, y]) => [x! * c, y!, x! * s + y! * 0.5]);
    const r = parseObjWithWarnings([...pts.map((q) => `v ${q.join(' ')}`), 'f 1 2 3 4 5 6'].join('\n'), 'tilt.obj');
    expect(r.warnings).toEqual([]);
    // Vector areas of the triangles all point the same way and sum to the polygon's.
    const m = r.mesh;
    const n0 = [0, 0, 0];
    const ns: number[][] = [];
    for (let t = 0; t < 4; t++) {
      const [a, b, d] = [0, 1, 2].map((k) => m.indices[t * 3 + k]! * 3);
      const p = (i: number, k: number): number => m.positions[i + k]!;
      const u = [0, 1, 2].map((k) => p(b!, k) - p(a!, k)), w = [0, 1, 2].map((k) => p(d!, k) - p(a!, k));
      const n = [u[1]! * w[2]! - u[2]! * w[1]!, u[2]! * w[0]! - u[0]! * w[2]!, u[0]! * w[1]! - u[1]! * w[0]!];
      ns.push(n);
      for (let k = 0; k < 3; k++) n0[k]! += n[k]!;
    }
    for (const n of ns) expect(n[0]! * n0[0]! + n[1]! * n0[1]! + n[2]! * n0[2]!).toBeGreaterThan(0);
    expect(Math.hypot(...ns.map((n) => Math.hypot(...n))) > 0).toBe(true);
    expect(ns.reduce((acc, n) => acc + Math.hypot(n[0]!, n[1]!, n[2]!), 0)).toBeCloseTo(Math.hypot(n0[0]!, n0[1]!, n0[2]!), 12);
  });

  it('warns about a non-planar quad and fans it as before, naming its line', () => {
    const v = ['v 0 0 0', 'v 1 0 0', 'v 1 1 0.2', 'v 0 1 0'];
    const r = parseObjWithWarnings([...v, 'f 1 2 3 4'].join('\n'), 'twist.obj');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toContain('twist.obj: line 5: polygon face not planar (a corner more than 0.001 of the face');
    expect(Array.from(r.mesh.indices)).toEqual([0, 1, 2, 0, 2, 3]);
    // Within the tolerance it is planar: no warning.
    const flat = parseObjWithWarnings(['v 0 0 0', 'v 1 0 0', 'v 1 1 0.0001', 'v 0 1 0', 'f 1 2 3 4'].join('\n'), 'flat.obj');
    expect(flat.warnings).toEqual([]);
  });

  it('warns about a self-intersecting polygon and fans it as before', () => {
    // A pentagram (star drawn with crossing edges) and a bow tie, on lines 6 and 11.
    const star = Array.from({ length: 5 }, (_, k) => `v ${Math.cos((4 * Math.PI * k) / 5)} ${Math.sin((4 * Math.PI * k) / 5)} 0`);
    const bow = ['v 0 0 1', 'v 1 1 1', 'v 1 0 1', 'v 0 1 1'];
    const r = parseObjWithWarnings([...star, 'f 1 2 3 4 5', ...bow, 'f 6 7 8 9', 'f 9 8 7 6'].join('\n'), 'star.obj');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toContain('star.obj: line 6: polygon face not simple');
    expect(r.warnings[0]).toContain('(3 lines)');
    expect(Array.from(r.mesh.indices.slice(0, 9))).toEqual([0, 1, 2, 0, 2, 3, 0, 3, 4]);
  });

  it('skips comments, blank lines, CRLF, w and the known non-geometry statements without warnings', () => {
    const text = [
      '# header', '', 'mtllib a.mtl', 'o thing', 'g group', 's 1', 'usemtl red',
      'v 0 0 0 1.0', 'v 1 0 0 # trailing comment', 'v 0 1 0', 'v 0 0 1',
      'vt 0 0', 'vn 0 0 1', 'vp 0.5', 'l 1 2', 'p 1',
      ...TET_F.map((f) => 'f ' + f.join(' ')), '   ', '',
    ].join('\r\n');
    const r = parseObjWithWarnings(text, 'noisy.obj');
    expect(r.warnings).toEqual([]);
    expect(Array.from(r.mesh.indices)).toEqual(Array.from(reference.indices));
  });

  it('reads every decimal form to exactly the double Number() gives', () => {
    const forms = ['0.1', '-1.5e-3', '123456.789', '1e22', '1e23', '0.30000000000000004', '.5', '5.', '-0', '+2',
      '1E5', '2.5e+3', '9007199254740993', '0.000001234567', '-98765.4321e-12', '3.141592653589793238'];
    while (forms.length % 3) forms.push('0');
    const vs: string[] = [];
    for (let i = 0; i < forms.length; i += 3) vs.push(`v ${forms[i]} ${forms[i + 1]} ${forms[i + 2]}`);
    // one polygon through all vertices, so none is dropped and their order is kept
    const face = 'f ' + vs.map((_, k) => k + 1).join(' ');
    const text = [...vs, face].join('\n');
    const m = parseObj(text, 'num.obj');
    expect(Array.from(m.positions)).toEqual(forms.map(Number));
    expect(Object.is(m.positions[8], -0)).toBe(true);
  });

  it('ignores a byte-order mark before the first statement', () => {
    const r = parseObjWithWarnings('\uFEFF' + tetObj((v) => `${v}`), 'bom.obj');
    expect(r.warnings).toEqual([]);
    expect(Array.from(r.mesh.positions)).toEqual(Array.from(reference.positions));
  });

  it('joins a line continued with a backslash', () => {
    const text = [...TET_V.slice(0, 3), 'v 0 0 \\', '1', ...TET_F.map((f) => 'f ' + f.join(' '))].join('\n');
    expect(Array.from(parseObj(text, 'cont.obj').positions)).toEqual(Array.from(reference.positions));
  });

  it('warns once per unknown statement keyword, naming the first line and the count', () => {
    const text = [...TET_V, 'curv 0 1 1 2', 'curv 0 1 2 3', ...TET_F.map((f) => 'f ' + f.join(' '))].join('\n');
    const r = parseObjWithWarnings(text, 'curvy.obj');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toContain('curvy.obj: line 5');
    expect(r.warnings[0]).toContain('"curv"');
    expect(r.warnings[0]).toContain('2 lines');
  });

  it('drops vertices no face uses and keeps the rest in order', () => {
    const text = ['v 9 9 9', ...TET_V, 'v 7 7 7', ...TET_F.map((f) => 'f ' + f.map((v) => v + 1).join(' '))].join('\n');
    const r = parseObjWithWarnings(text, 'stray.obj');
    expect(Array.from(r.mesh.positions)).toEqual(Array.from(reference.positions));
    expect(Array.from(r.mesh.indices)).toEqual(Array.from(reference.indices));
    expect(r.warnings.some((w) => w.includes('2 vertices'))).toBe(true);
  });

  it('drops a consecutively repeated corner so "f 1 2 3 3" is one triangle', () => {
    const text = [...TET_V, 'f 1 3 2 2', 'f 1 2 4', 'f 2 3 4', 'f 1 4 3 1'].join('\n');
    const r = parseObjWithWarnings(text, 'rep.obj');
    expect(Array.from(r.mesh.indices)).toEqual(Array.from(reference.indices));
    expect(r.warnings).toHaveLength(1);
  });

  it('accepts positive indices that point forward to vertices defined later', () => {
    const text = [...TET_F.map((f) => 'f ' + f.join(' ')), ...TET_V].join('\n');
    expect(Array.from(parseObj(text, 'fwd.obj').indices)).toEqual(Array.from(reference.indices));
  });
});

describe('parseObj warnings about unsupported keywords', () => {
  it('names ten keywords one by one, then counts the rest in one line', () => {
    const tet = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'v 0 0 1', 'f 1 3 2', 'f 1 2 4', 'f 1 4 3', 'f 2 3 4'];
    const keywords = Array.from({ length: 1000 }, (_, i) => `kw${i} 1 2 3`);
    const r = parseObjWithWarnings([...tet, ...keywords, 'kw3 again', 'kw999 again'].join('\n'), 'kw.obj');
    expect(r.warnings).toHaveLength(11);
    expect(r.warnings[0]).toBe('kw.obj: line 9: unsupported statement "kw0" ignored');
    expect(r.warnings[3]).toBe('kw.obj: line 12: unsupported statement "kw3" ignored (2 lines)');
    expect(r.warnings[10]).toBe('kw.obj: line 19: 990 more unsupported keywords ignored (on 991 lines)');
  });
});

describe('parseObj errors name the file, the line and what was expected', () => {
  const faces = TET_F.map((f) => 'f ' + f.join(' '));

  it('refuses a malformed number', () => {
    const msg = inputError(() => parseObj(['v 0 0 0', 'v 1 0 0', 'v 0 1.5x 0'].join('\n'), 'bad.obj'), 'bad.obj', 'line 3');
    expect(msg).toContain('malformed number "1.5x"');
    expect(msg).toContain('y coordinate');
  });

  it.each(['nan', 'NaN', 'inf', '-Infinity'])('refuses a non-finite coordinate written %s', (s) => {
    const msg = inputError(() => parseObj(['# c', `v 0 ${s} 0`].join('\n'), 'nan.obj'), 'nan.obj', 'line 2');
    expect(msg).toContain('finite');
  });

  it('refuses a coordinate that overflows to infinity', () => {
    const msg = inputError(() => parseObj('v 1e999 0 0\n', 'big.obj'), 'big.obj', 'line 1');
    expect(msg).toContain('finite');
  });

  it('refuses a vertex with too few coordinates', () => {
    const msg = inputError(() => parseObj(['v 0 0 0', 'v 1 0'].join('\n'), 'few.obj'), 'few.obj', 'line 2');
    expect(msg).toContain('2 coordinates');
    expect(msg).toContain('v x y z');
  });

  it('refuses a face with fewer than 3 vertices', () => {
    const msg = inputError(() => parseObj([...TET_V, 'f 1 2'].join('\n'), 'f2.obj'), 'f2.obj', 'line 5');
    expect(msg).toContain('face has 2 vertices');
    expect(msg).toContain('at least 3');
  });

  it('drops a face of fewer than 3 distinct vertices (f 1 1 2) with a warning naming the file and line, as docs/meshes.md says', () => {
    const tet = TET_F.map((f) => `f ${f.join(' ')}`);
    for (const face of ['f 1 1 2', 'f 1 2 2', 'f 2 1 2', 'f 3 3 3', 'f 1 1 2 2']) {
      const r = parseObjWithWarnings([...TET_V, ...tet.slice(0, 2), face, ...tet.slice(2)].join('\n'), 'dup.obj');
      const v = validateMesh(r.mesh, 'dup.obj', r.numbering);
      // Dropped once, by validateMesh, with the face's line; not also as a "repeated consecutive vertex".
      expect([...r.warnings, ...v.warnings], face).toEqual(['dup.obj: 1 triangle naming one vertex twice (zero area) dropped, first: triangle 3 (line 7)']);
      expect(Array.from(v.mesh.indices), face).toEqual(TET_F.flat().map((i) => i - 1));
      expect(signedVolume(v.mesh)).toBeCloseTo(1 / 6, 14);
    }
    // A file of nothing else is no mesh: refused, naming the first such face.
    const only = parseObjWithWarnings([...TET_V, 'f 1 2 2', 'f 3 3 4'].join('\n'), 'f22.obj');
    const msg = inputError(() => validateMesh(only.mesh, 'f22.obj', only.numbering), 'f22.obj', 'line 5');
    expect(msg).toContain('every triangle names one vertex twice');
  });

  it('refuses index 0', () => {
    const msg = inputError(() => parseObj([...TET_V, 'f 0 1 2'].join('\n'), 'zero.obj'), 'zero.obj', 'line 5');
    expect(msg).toContain('index 0');
    expect(msg).toContain('start at 1');
  });

  it('refuses a positive index past the last vertex, naming the index and the vertex count', () => {
    const msg = inputError(
      () => parseObj([...TET_V, ...faces.slice(0, 2), 'f 1 2 9', ...faces.slice(2)].join('\n'), 'oor.obj'),
      'oor.obj',
      'line 7',
    );
    expect(msg).toContain('index 9');
    expect(msg).toContain('4 vertices');
  });

  it('refuses a negative index reaching before the first vertex', () => {
    const msg = inputError(() => parseObj([...TET_V, 'f -1 -2 -5'].join('\n'), 'neg.obj'), 'neg.obj', 'line 5');
    expect(msg).toContain('index -5');
    expect(msg).toContain('4 vertices');
  });

  it('names an index too long for a double as written, not in exponent form', () => {
    const big = '1234567890123456789012345';
    let msg = inputError(() => parseObj([...TET_V, `f 1 2 +000${big}/7/8`].join('\n'), 'big.obj'), 'big.obj', 'line 5');
    expect(msg).toContain(`index +000${big} is out of range`);
    msg = inputError(() => parseObj([...TET_V, `f 1 2 -${big}//3`].join('\n'), 'big.obj'), 'big.obj', 'line 5');
    expect(msg).toContain(`index -${big} is out of range`);
    expect(msg).not.toMatch(/e\+/);
  });

  it('refuses a malformed face corner', () => {
    const msg = inputError(() => parseObj([...TET_V, 'f 1 2 3x'].join('\n'), 'fc.obj'), 'fc.obj', 'line 5');
    expect(msg).toContain('"3x"');
    expect(msg).toContain('v/vt/vn');
  });

  it('refuses an empty file', () => {
    const msg = inputError(() => parseObj('', 'empty.obj'), 'empty.obj', 'line 1');
    expect(msg).toContain('no faces');
  });

  it('names a JSON file (a scene, a grid) passed where a mesh belongs', () => {
    const msg = inputError(() => parseObj('\n  {"format": "stackfield-scene/1",\n "bodies": []}\n', 'scene.json'), 'scene.json', 'line 1');
    expect(msg).toContain('this is JSON, not a Wavefront OBJ mesh');
    expect(inputError(() => parseObj('[1, 2]', 'list.json'), 'list.json', 'line 1')).toContain('JSON');
  });

  it('refuses a file with vertices but no faces, pointing at its last line', () => {
    const msg = inputError(() => parseObj(TET_V.join('\n') + '\n', 'pts.obj'), 'pts.obj', 'line 4');
    expect(msg).toContain('4 vertices but no faces');
  });
});
