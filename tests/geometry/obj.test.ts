import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { parseObj, parseObjWithWarnings } from '../../src/geometry/obj.ts';
import { signedVolume } from '../../src/geometry/mesh.ts';
import { validateMesh } from '../../src/geometry/validate.ts';

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

  it('warns when a nonconvex polygon is fanned from a vertex that folds the fan, naming its line', () => {
    // An L-shaped hexagon, counter-clockwise; fanning from (2, 1) folds, from (0, 0) it does not.
    const v = ['v 2 1 0', 'v 1 1 0', 'v 1 2 0', 'v 0 2 0', 'v 0 0 0', 'v 2 0 0'];
    const bad = parseObjWithWarnings([...v, 'f 1 2 3 4 5 6'].join('\n'), 'l.obj');
    expect(bad.warnings).toHaveLength(1);
    expect(bad.warnings[0]).toContain('l.obj: line 7: 1 polygon face is not convex');
    const good = parseObjWithWarnings([...v, 'f 5 6 1 2 3 4'].join('\n'), 'l.obj');
    expect(good.warnings).toEqual([]);
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

  it('refuses a face whose distinct vertices are fewer than 3', () => {
    const msg = inputError(() => parseObj([...TET_V, 'f 1 2 2'].join('\n'), 'f22.obj'), 'f22.obj', 'line 5');
    expect(msg).toContain('2 distinct vertices');
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

  it('refuses a malformed face corner', () => {
    const msg = inputError(() => parseObj([...TET_V, 'f 1 2 3x'].join('\n'), 'fc.obj'), 'fc.obj', 'line 5');
    expect(msg).toContain('"3x"');
    expect(msg).toContain('v/vt/vn');
  });

  it('refuses an empty file', () => {
    const msg = inputError(() => parseObj('', 'empty.obj'), 'empty.obj', 'line 1');
    expect(msg).toContain('no faces');
  });

  it('refuses a file with vertices but no faces, pointing at its last line', () => {
    const msg = inputError(() => parseObj(TET_V.join('\n') + '\n', 'pts.obj'), 'pts.obj', 'line 4');
    expect(msg).toContain('4 vertices but no faces');
  });
});
