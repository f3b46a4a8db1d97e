/**
 * What a renderer draws and the interface both renderers share: the WebGPU
 * one (gpuRenderer.ts) and the Canvas2D wireframe fallback
 * (fallbackRenderer.ts) used when WebGPU is missing or the device is lost.
 */
import type { BodyStore } from '../dynamics/bodies.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import type { ContactView, StepHook } from '../dynamics/world.ts';
import { SoftCoupling } from '../soft/coupling.ts';
import type { SoftSystem } from '../soft/system.ts';
import type { OrbitCamera } from './camera.ts';
import type { ViewState } from './views.ts';

/** The part of World a renderer reads (a World is one). */
export interface RenderWorld {
  readonly bodies: BodyStore;
  readonly shapes: readonly RigidShape[];
  readonly level: Int32Array;
  readonly contacts: ContactView;
  /** Joints, drawn with the contacts view, and ropes and distance joints, drawn always (World.constraints). */
  readonly constraints?: { anchorSegments?(): Float64Array; ropeSegments?(): Float64Array } | null;
  /** The last step's external forces (World.forces): arrowCount arrows of point xyz and force xyz. */
  readonly forces?: { readonly arrows: Float64Array; readonly arrowCount: number } | null;
  /** The soft bodies (World.soft), drawn by src/app/render/softPasses.ts. */
  readonly soft?: StepHook | null;
}

/** The soft bodies of a world, or null. */
export function softSystemOf(world: RenderWorld | null): SoftSystem | null {
  return world?.soft instanceof SoftCoupling ? world.soft.system : null;
}

export interface SceneRenderer {
  readonly kind: 'webgpu' | 'canvas2d';
  readonly canvas: HTMLCanvasElement;
  /** A new world (new scene or reset): upload its shapes, release the old world's. */
  setWorld(world: RenderWorld | null): void;
  /** The body drawn lighter with its edges over it (the selection), -1 none. */
  setHighlight(body: number): void;
  /** Size of the drawing buffer in device pixels. */
  resize(width: number, height: number): void;
  render(camera: OrbitCamera, views: ViewState): void;
  destroy(): void;
}

/** Direction towards the key light (unit), shared by shading and planar shadows. */
export const LIGHT_DIR: readonly [number, number, number] = (() => {
  const v = [0.55, 1.0, 0.4];
  const l = Math.hypot(v[0]!, v[1]!, v[2]!);
  return [v[0]! / l, v[1]! / l, v[2]! / l] as [number, number, number];
})();
