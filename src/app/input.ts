/**
 * Mouse, wheel and keys -> orbit camera (camera.ts does the math) and app actions.
 *   left drag: orbit      right drag / shift+drag / middle drag: pan
 *   wheel: zoom           W A S D / arrows: move the target, Q / E: down / up
 *   click: choose a body  double-click: choose it and frame it
 *   F: frame everything   0 / Home: the view the scene opened with
 *   G: follow the chosen body   O: numbers overlay
 *   Space: play / pause   N or .: one step   , : one step back   R: reset
 * Keys are ignored while a text field or the panel has focus.
 */
import { orbit, pan, walk, zoom, type OrbitCamera } from './camera.ts';

export interface InputActions {
  /** The user moved the camera: turned or zoomed it (the target stays), or moved the target. */
  onCameraChange(kind: 'turn' | 'move'): void;
  togglePlay(): void;
  step(): void;
  stepBack(): void;
  reset(): void;
  frame(): void;
  resetView(): void;
  toggleFollow(): void;
  toggleNumbers(): void;
  /** A click (not a drag) at canvas pixel (x, y); `double` for the second click of a double-click. */
  click(x: number, y: number, double: boolean): void;
  /** The height of the scene's level floor, which orbiting does not take the eye under; null without one. */
  groundY(): number | null;
}

/** A press that moves less than this many pixels is a click, not a drag. */
const CLICK_SLOP = 4;
/** Two clicks this close in time are a double-click. */
const DOUBLE_MS = 350;

export function attachCameraInput(canvas: HTMLCanvasElement, camera: OrbitCamera, actions: InputActions): () => void {
  let dragging: 'orbit' | 'pan' | null = null;
  let lastX = 0;
  let lastY = 0;
  let downX = 0;
  let downY = 0;
  let moved = false;
  let lastClick = -Infinity;
  const held = new Set<string>();
  let raf = 0;
  let lastT = 0;

  const down = (e: PointerEvent) => {
    const panMode = e.button === 2 || e.button === 1 || e.shiftKey;
    dragging = panMode ? 'pan' : 'orbit';
    lastX = downX = e.clientX;
    lastY = downY = e.clientY;
    moved = false;
    canvas.setPointerCapture(e.pointerId);
    canvas.classList.add('dragging');
    e.preventDefault();
  };
  const move = (e: PointerEvent) => {
    if (!dragging) return;
    const dx = e.clientX - lastX;
    const dy = e.clientY - lastY;
    lastX = e.clientX;
    lastY = e.clientY;
    if (!moved && Math.hypot(e.clientX - downX, e.clientY - downY) < CLICK_SLOP) return;
    moved = true;
    if (dragging === 'orbit') orbit(camera, dx, dy, undefined, actions.groundY());
    else pan(camera, dx, dy, canvas.clientHeight);
    actions.onCameraChange(dragging === 'orbit' ? 'turn' : 'move');
  };
  const up = (e: PointerEvent) => {
    if (dragging === 'orbit' && !moved && e.type === 'pointerup') {
      const r = canvas.getBoundingClientRect();
      const now = performance.now();
      actions.click(e.clientX - r.left, e.clientY - r.top, now - lastClick < DOUBLE_MS);
      lastClick = now;
    }
    dragging = null;
    canvas.classList.remove('dragging');
    if (canvas.hasPointerCapture(e.pointerId)) canvas.releasePointerCapture(e.pointerId);
  };
  const wheel = (e: WheelEvent) => {
    e.preventDefault();
    // deltaMode 1 = lines (Firefox): about 40 pixels each.
    const d = e.deltaMode === 1 ? e.deltaY * 40 : e.deltaY;
    zoom(camera, d);
    actions.onCameraChange('turn');
  };
  const menu = (e: Event) => e.preventDefault();

  // Keys go to a field the user types in (text, numbers, a slider's arrows,
  // a list); a checkbox or button keeps the focus after a click, and the
  // shortcuts must still work there (Space toggled the checkbox and the
  // simulation ran on).
  const typing = (e: KeyboardEvent) => {
    const t = e.target as HTMLElement | null;
    if (!t) return false;
    if (t.tagName === 'INPUT') {
      const type = (t as HTMLInputElement).type;
      // A slider (the timeline) keeps only its own keys: space still plays after a scrub.
      if (type === 'range') return RANGE_KEYS.has(e.key.toLowerCase());
      return !CLICK_INPUTS.has(type);
    }
    return t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || t.isContentEditable;
  };
  const CLICK_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'color']);
  const RANGE_KEYS = new Set(['arrowup', 'arrowdown', 'arrowleft', 'arrowright', 'home', 'end', 'pageup', 'pagedown']);
  const MOVE_KEYS = new Set(['w', 'a', 's', 'd', 'q', 'e', 'arrowup', 'arrowdown', 'arrowleft', 'arrowright']);
  const keydown = (e: KeyboardEvent) => {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    if (MOVE_KEYS.has(k)) {
      held.add(k);
      if (!raf) {
        lastT = performance.now();
        raf = requestAnimationFrame(tick);
      }
      e.preventDefault();
    } else if (k === ' ') {
      actions.togglePlay();
      e.preventDefault();
    } else if (k === 'n' || k === '.') actions.step();
    else if (k === ',') actions.stepBack();
    else if (k === 'r') actions.reset();
    else if (k === 'f') actions.frame();
    else if (k === '0' || k === 'home') actions.resetView();
    else if (k === 'g') actions.toggleFollow();
    else if (k === 'o') actions.toggleNumbers();
  };
  const keyup = (e: KeyboardEvent) => held.delete(e.key.toLowerCase());
  const blur = () => held.clear();
  // Keys move the target at a speed proportional to the distance, so they feel the same at every zoom.
  const tick = (t: number) => {
    const dt = Math.min(0.1, (t - lastT) / 1000);
    lastT = t;
    const v = camera.distance * 0.6 * dt;
    let f = 0, r = 0, u = 0;
    if (held.has('w') || held.has('arrowup')) f += v;
    if (held.has('s') || held.has('arrowdown')) f -= v;
    if (held.has('d') || held.has('arrowright')) r += v;
    if (held.has('a') || held.has('arrowleft')) r -= v;
    if (held.has('e')) u += v;
    if (held.has('q')) u -= v;
    if (f || r || u) {
      walk(camera, f, r);
      camera.target[1] += u;
      actions.onCameraChange('move');
    }
    raf = held.size > 0 ? requestAnimationFrame(tick) : 0;
  };

  canvas.addEventListener('pointerdown', down);
  canvas.addEventListener('pointermove', move);
  canvas.addEventListener('pointerup', up);
  canvas.addEventListener('pointercancel', up);
  canvas.addEventListener('wheel', wheel, { passive: false });
  canvas.addEventListener('contextmenu', menu);
  window.addEventListener('keydown', keydown);
  window.addEventListener('keyup', keyup);
  window.addEventListener('blur', blur);
  return () => {
    canvas.removeEventListener('pointerdown', down);
    canvas.removeEventListener('pointermove', move);
    canvas.removeEventListener('pointerup', up);
    canvas.removeEventListener('pointercancel', up);
    canvas.removeEventListener('wheel', wheel);
    canvas.removeEventListener('contextmenu', menu);
    window.removeEventListener('keydown', keydown);
    window.removeEventListener('keyup', keyup);
    window.removeEventListener('blur', blur);
    if (raf) cancelAnimationFrame(raf);
  };
}
