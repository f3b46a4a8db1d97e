/**
 * The interface every render pass implements and the frame state it reads
 * (the renderer, gpuRenderer.ts, drives the passes through these alone).
 *
 * A pass owns its pipeline and every GPU object it creates. Objects that
 * belong to a scene (per-shape buffers) are released in `setScene`, the rest
 * in `destroy`, so neither a scene change nor a new renderer leaves a buffer
 * behind (tests/gpu/renderer.test.ts counts them).
 */
import type { ViewState } from '../views.ts';
import type { RenderWorld } from '../sceneRenderer.ts';
import type { OverlayGeometry } from '../overlays.ts';
import type { SceneGeometry } from './sceneGeometry.ts';

/** What a pass reads while recording one frame. */
export interface FrameState {
  readonly world: RenderWorld;
  readonly views: ViewState;
  readonly scene: SceneGeometry;
  /** Overlay lines and points built for this frame (shared by the line and point passes). */
  readonly overlay: OverlayGeometry;
  /** The highlighted body (its wireframe is drawn over it), -1 none. */
  readonly highlight: number;
}

export interface RenderPassNode {
  readonly label: string;
  /** A new scene (or none): release what belonged to the old one. */
  setScene(scene: SceneGeometry | null): void;
  /** Uploads for this frame (queue writes), before the render pass begins. */
  prepare?(frame: FrameState): void;
  /** Records draws into the frame's render pass (bind group 0, the frame, is set). */
  record(pass: GPURenderPassEncoder, frame: FrameState): void;
  /** Device pixels per CSS pixel changed (dot sizes are in CSS pixels). */
  setPixelRatio?(dpr: number): void;
  destroy(): void;
}
