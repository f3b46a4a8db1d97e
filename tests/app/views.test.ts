import { describe, expect, it } from 'vitest';
import {
  activeViews,
  defaultViews,
  drawsSolids,
  resolveSliceBody,
  setSliceAxis,
  setSliceBody,
  setSliceOffset,
  setView,
  toggleView,
  VIEW_NAMES,
  viewsFromParam,
  viewsToParam,
} from '../../src/app/views.ts';

describe('view state', () => {
  it('starts with every view off and the solids drawn', () => {
    const s = defaultViews();
    expect(activeViews(s)).toEqual([]);
    expect(drawsSolids(s)).toBe(true);
  });

  it('toggling a view twice restores the state and leaves the others alone', () => {
    const s0 = setView(defaultViews(), 'contacts', true);
    const s1 = toggleView(s0, 'depthField');
    expect(s1.depthField).toBe(true);
    expect(s1.contacts).toBe(true);
    expect(s0.depthField).toBe(false); // the old state is not mutated
    expect(toggleView(s1, 'depthField')).toEqual(s0);
  });

  it('setting a view to its current value returns the same object', () => {
    const s = defaultViews();
    expect(setView(s, 'aabbs', false)).toBe(s);
  });

  it('wireframe replaces the solid bodies', () => {
    expect(drawsSolids(setView(defaultViews(), 'wireframe', true))).toBe(false);
  });

  it('clamps the slice offset to [0, 1] and rejects NaN', () => {
    const s = defaultViews();
    expect(setSliceOffset(s, 1.7).sliceOffset).toBe(1);
    expect(setSliceOffset(s, -2).sliceOffset).toBe(0);
    expect(setSliceOffset(s, Number.NaN).sliceOffset).toBe(0.5);
    expect(setSliceAxis(s, 'x').sliceAxis).toBe('x');
  });

  it('the depth-field body falls back to the first body with an SDF', () => {
    const hasSdf = (i: number) => i !== 0; // body 0 is a plane
    let s = resolveSliceBody(defaultViews(), 5, hasSdf);
    expect(s.sliceBody).toBe(1);
    s = resolveSliceBody(setSliceBody(s, 3), 5, hasSdf);
    expect(s.sliceBody).toBe(3);
    // After a scene change with fewer bodies the choice is fixed again.
    expect(resolveSliceBody(s, 2, hasSdf).sliceBody).toBe(1);
    // A plane alone: nothing to show.
    expect(resolveSliceBody(s, 1, hasSdf).sliceBody).toBe(-1);
  });

  it('round-trips through the URL parameter and ignores unknown names', () => {
    let s = defaultViews();
    for (const n of ['samples', 'levels'] as const) s = setView(s, n, true);
    expect(viewsToParam(s)).toBe('samples,levels');
    expect(viewsFromParam(viewsToParam(s))).toEqual(s);
    const t = viewsFromParam('contacts, bogus ,wireframe');
    expect(activeViews(t)).toEqual(['wireframe', 'contacts']);
    expect(activeViews(viewsFromParam(null))).toEqual([]);
    expect(VIEW_NAMES.every((n) => viewsFromParam(n)[n])).toBe(true);
  });
});
