/**
 * Which debug views are on (the seed's viewer, docs/ALGORITHM.md 8, plus a few).
 * A small pure module: the panel writes it, the renderers read it, the URL
 * carries it, and unit tests check the rules without a browser.
 *
 * Rules that live here rather than in the UI:
 *  - the depth field and its slice need a body with an SDF; when the chosen
 *    body has none (a plane) or is gone after a scene change, the first body
 *    with an SDF is chosen instead, or the view shows nothing;
 *  - the slice offset is a fraction of the grid along the slice axis, clamped
 *    to [0, 1], so it survives a change of body or scene;
 *  - the slice axis is either fixed (x, y, z of the body's grid) or, in
 *    'camera' mode, the grid axis that faces the camera most (main.ts
 *    resolves it every frame with sliceView.ts facingAxis, into sliceAxis);
 *  - while the depth field shows a body, the other bodies fade to faint
 *    edges, hide, or stay ('others').
 */

export const VIEW_NAMES = ['wireframe', 'samples', 'depthField', 'aabbs', 'contacts', 'forces', 'levels', 'softSprings', 'softParticles'] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

/** Labels shown in the panel, in panel order. */
export const VIEW_LABELS: Record<ViewName, string> = {
  wireframe: 'wireframe',
  samples: 'sample points',
  depthField: 'depth field',
  aabbs: 'world AABBs',
  contacts: 'contacts, joints',
  forces: 'forces (arrows)',
  levels: 'graph levels',
  softSprings: 'soft springs (strain)',
  softParticles: 'soft particles',
};

export type SliceAxis = 'x' | 'y' | 'z';
/** How the slice axis is chosen: the grid axis most facing the camera, or a fixed one. */
export type SliceMode = 'camera' | SliceAxis;
/** The bodies other than the depth-field body while the view is on. */
export type OthersMode = 'fade' | 'hide' | 'show';
export const SLICE_MODES: readonly SliceMode[] = ['camera', 'x', 'y', 'z'];
export const OTHERS_MODES: readonly OthersMode[] = ['fade', 'hide', 'show'];

export interface ViewState {
  readonly wireframe: boolean;
  readonly samples: boolean;
  readonly depthField: boolean;
  readonly aabbs: boolean;
  readonly contacts: boolean;
  /** External forces (wind on drag, fields, forces at a point) as arrows. */
  readonly forces: boolean;
  readonly levels: boolean;
  /** Soft bodies: springs coloured by strain (blue compressed, red stretched), and the particles. */
  readonly softSprings: boolean;
  readonly softParticles: boolean;
  /** Body whose SDF the depth field and slice show (index into the world's bodies, -1 none). */
  readonly sliceBody: number;
  /** The axis the slice is drawn across (in 'camera' mode the one main.ts resolved last). */
  readonly sliceAxis: SliceAxis;
  readonly sliceMode: SliceMode;
  /** Position of the slice across the grid along sliceAxis, 0 = first node, 1 = last. */
  readonly sliceOffset: number;
  /** The other bodies while the depth field is on. */
  readonly others: OthersMode;
  /** The grid nodes near the surface as dots (inside green, outside red); off at first, as they cover the slice. */
  readonly depthNodes: boolean;
}

export function defaultViews(): ViewState {
  return {
    wireframe: false,
    samples: false,
    depthField: false,
    aabbs: false,
    contacts: false,
    forces: false,
    levels: false,
    softSprings: false,
    softParticles: false,
    sliceBody: -1,
    sliceAxis: 'z',
    sliceMode: 'camera',
    sliceOffset: 0.5,
    others: 'fade',
    depthNodes: false,
  };
}

export function setView(s: ViewState, name: ViewName, on: boolean): ViewState {
  return s[name] === on ? s : { ...s, [name]: on };
}

export function toggleView(s: ViewState, name: ViewName): ViewState {
  return setView(s, name, !s[name]);
}

export function setSliceOffset(s: ViewState, offset: number): ViewState {
  const o = Number.isFinite(offset) ? Math.min(1, Math.max(0, offset)) : 0.5;
  return o === s.sliceOffset ? s : { ...s, sliceOffset: o };
}

export function setSliceAxis(s: ViewState, axis: SliceAxis): ViewState {
  return axis === s.sliceAxis ? s : { ...s, sliceAxis: axis };
}

/** A fixed axis also becomes the drawn axis; 'camera' keeps the drawn one until it is resolved. */
export function setSliceMode(s: ViewState, mode: SliceMode): ViewState {
  const m: SliceMode = SLICE_MODES.includes(mode) ? mode : 'camera';
  const next = m === s.sliceMode ? s : { ...s, sliceMode: m };
  return m === 'camera' ? next : setSliceAxis(next, m);
}

export function setOthers(s: ViewState, others: OthersMode): ViewState {
  const o: OthersMode = OTHERS_MODES.includes(others) ? others : 'fade';
  return o === s.others ? s : { ...s, others: o };
}

export function setDepthNodes(s: ViewState, on: boolean): ViewState {
  return on === s.depthNodes ? s : { ...s, depthNodes: on };
}

/**
 * How body `i` is drawn: 'solid', or, while the depth field shows another
 * body, as `others` says; the depth-field body itself is 'wire' (its edges
 * around the slice). Wireframe view aside (it draws every body's edges).
 */
export function bodyLook(s: ViewState, i: number): 'solid' | 'wire' | 'faded' | 'hidden' {
  if (!s.depthField || s.sliceBody < 0) return 'solid';
  if (i === s.sliceBody) return 'wire';
  return s.others === 'fade' ? 'faded' : s.others === 'hide' ? 'hidden' : 'solid';
}

/**
 * The body the depth field shows, made valid for a world of `bodyCount`
 * bodies where `hasSdf(i)` tells which can be shown: keeps a valid choice,
 * else the first body with an SDF, else -1.
 */
export function resolveSliceBody(s: ViewState, bodyCount: number, hasSdf: (i: number) => boolean): ViewState {
  if (s.sliceBody >= 0 && s.sliceBody < bodyCount && hasSdf(s.sliceBody)) return s;
  let pick = -1;
  for (let i = 0; i < bodyCount; i++) {
    if (hasSdf(i)) {
      pick = i;
      break;
    }
  }
  return pick === s.sliceBody ? s : { ...s, sliceBody: pick };
}

/** Choose a body (from the panel); invalid choices are fixed by resolveSliceBody. */
export function setSliceBody(s: ViewState, body: number): ViewState {
  const b = Number.isInteger(body) ? body : -1;
  return b === s.sliceBody ? s : { ...s, sliceBody: b };
}

export function activeViews(s: ViewState): ViewName[] {
  return VIEW_NAMES.filter((n) => s[n]);
}

/** Whether the solid bodies are drawn (wireframe replaces them). */
export function drawsSolids(s: ViewState): boolean {
  return !s.wireframe;
}

/** The `views` URL parameter: active view names joined by commas ("" when none). */
export function viewsToParam(s: ViewState): string {
  return activeViews(s).join(',');
}

/** Parses a `views` URL parameter; unknown names are ignored (links from newer versions still open). */
export function viewsFromParam(param: string | null, base: ViewState = defaultViews()): ViewState {
  let s: ViewState = base;
  for (const n of VIEW_NAMES) s = setView(s, n, false);
  if (!param) return s;
  for (const raw of param.split(',')) {
    const n = raw.trim() as ViewName;
    if ((VIEW_NAMES as readonly string[]).includes(n)) s = setView(s, n, true);
  }
  return s;
}
