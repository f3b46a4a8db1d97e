/**
 * Shapes from their descriptions, each built once: mesh -> validation and
 * repair -> what it encloses -> mass properties -> re-centre on the centre of
 * mass -> samples -> SDF; the size limits checked before any of it
 * (BUILD_LIMITS, shapeCost) and the build's progress; the mass and inertia of
 * a body of a shape. build.ts builds worlds from them, soft/build.ts soft
 * bodies. A shape is built in two halves around its bake (startShape,
 * finishShape), so that a world's shapes are all checked before any is
 * baked and their fields baked together (SceneIo.bakeAll).
 *
 * Every shape of the scene is loaded and checked, also one that no body uses
 * (its broken mesh would otherwise go unnoticed until someone uses it); only
 * the SDF bake is skipped for it. Every derived quantity (volume, SDF cell,
 * mass, principal moments of inertia and their inverses) must be finite and
 * within DERIVED_MIN..DERIVED_MAX, or the scene is bad input naming the shape
 * or body and the value (see validate.ts MIN_SIZE for the reason of the range).
 */
import type { MeshNumbering, TriMesh, Vec3 } from '../geometry/mesh.ts';
import { meshBounds, translatedMesh, scaledMesh } from '../geometry/mesh.ts';
import { buildSamples, type CollisionSamples } from '../geometry/samples.ts';
import { exactField, samplesOnSolid, trueSolid } from './trueSolids.ts';
import {
  boxMesh, capsuleMesh, cylinderMesh, extrudeMesh, planeQuadMesh, revolveMesh, sphereMesh, torusMesh,
} from '../geometry/shapes.ts';
import { parseObjWithWarnings } from '../geometry/obj.ts';
import { MIN_THICKNESS_REL, validateMesh, type ValidatedMesh } from '../geometry/validate.ts';
import { DEFAULT_CELLS, DEFAULT_PADDING, bakeSdfCpu, type BakeJob, type BakeOptions } from '../sdf/bake.ts';
import { invertInertia, massFromSdf, principalInertia, type MassProperties } from '../sdf/mass.ts';
import { analyseSolid, describeSolid, signByWinding, TangledMeshError, type SolidAnalysis } from '../sdf/solid.ts';
import { gridLayout, type SdfGrid } from '../sdf/grid.ts';
import { InputError, bareMessage } from '../errors.ts';
import type { ConvexSolid, RigidShape } from '../dynamics/shape.ts';
import type { SceneDesc, ShapeDesc, SdfSettings } from './types.ts';
import { fileLabel, quote } from '../util/echo.ts';
import { checkPositionPrecision } from './precision.ts';
import { describeFsError } from './load.ts';
import { childPath } from './reader.ts';
import { checkForceSpeeds } from './forcesValidate.ts';

export interface SceneIo {
  /** Reads a mesh file named by a shape's resolvedPath. */
  readText(path: string): Promise<string>;
  /** Bakes an SDF (default: the exact CPU bake); the GPU backend passes its own. */
  bake?: (mesh: TriMesh, opts: { cells: number; padding: number; onProgress?: (fraction: number) => void }) => Promise<SdfGrid>;
  /** Bakes a batch of SDFs, a scene's shapes (default: `bake` on each in turn); the GPU backend's goes in one submission. */
  bakeAll?: (jobs: readonly BakeJob[]) => Promise<SdfGrid[]>;
  /** Receives warnings (e.g. a mesh that was flipped outward). */
  warn?: (message: string) => void;
  /** The most a shape may cost (default BUILD_LIMITS); a shape beyond them is refused before it is built. */
  limits?: Partial<BuildLimits>;
  /** Told which shape is being built and how far its SDF bake has got, for a progress display. */
  progress?: (p: BuildProgress) => void;
  /**
   * Told when a shape enters a step of its build that reports no progress of
   * its own (BuildStage: parsing its OBJ file, validation, the analysis of
   * what it encloses, its collision samples; the world's samples handed to
   * the queries), for a progress display: each runs in one piece, and an
   * 80 000-triangle mesh spends seconds in them without a bake's percentage.
   */
  stage?: (p: BuildStage) => void;
  /**
   * Shapes already built, by their description (and the scene's edge
   * samples): a world rebuilt with one more body (the app placing a library
   * instance) reuses them instead of baking their fields again.
   */
  shapes?: Map<string, RigidShape>;
}

/**
 * What one shape may cost before it is refused as bad input: a shape of two
 * million triangles, or an SDF of a billion nodes, would otherwise build for
 * as long as anyone waits and then run out of memory. `names` says how the
 * caller lets the user raise a limit, N standing for the value needed (the
 * CLI: "--max-triangles N").
 */
export interface BuildLimits {
  maxTriangles: number;
  maxSdfNodes: number;
  names: { maxTriangles: string; maxSdfNodes: string };
}

export const BUILD_LIMITS: BuildLimits = {
  // 270 times the Stanford bunny; about 20 s and 700 MB to build (shapeCost).
  maxTriangles: 1_000_000,
  // 2^25 (322^3): a 256-cell grid with its padding fits; 128 MB of float32 values, some 10 s of bake.
  maxSdfNodes: 1 << 25,
  names: { maxTriangles: 'limits.maxTriangles = N', maxSdfNodes: 'limits.maxSdfNodes = N' },
};

export interface BuildProgress {
  /** The shape's name, its index among the shapes built and how many there are. */
  shape: string;
  index: number;
  count: number;
  /** Fraction of this shape's SDF baked (0 when it starts, 1 when done). */
  fraction: number;
  /** shapeCost's estimate for this shape, seconds. */
  estimate: number;
}

/**
 * The steps of a build that report no progress of their own, in their order:
 * a mesh file parsed, the mesh validated and repaired, what it encloses
 * analysed (its triangle BVH, self-intersections, the winding of each patch),
 * and after the bake its collision samples placed; once for the world, every
 * shape's samples prepared for the query backend (ordered and bounded).
 */
export type BuildStep = 'parsing' | 'validating' | 'analysing' | 'sampling' | 'preparing';

export interface BuildStage {
  step: BuildStep;
  /** The shape, its index among the shapes built and how many there are; for 'preparing', null, 0 and the world's shapes. */
  shape: string | null;
  index: number;
  count: number;
  /** Triangles of the mesh (for 'parsing', guessed from the file's size; for 'preparing', of all the shapes). */
  triangles: number;
  /** shapeCost's estimate, seconds, of the whole shape's build (its bake included; for 'preparing', of the step). */
  estimate: number;
}

/** What a build step does, for a progress line ("checking 81920 triangles"). */
export function buildStepText(step: BuildStep, triangles: number): string {
  switch (step) {
    case 'parsing':
      return 'parsing the mesh file';
    case 'validating':
      return `checking ${triangles} triangles`;
    case 'analysing':
      return `finding what ${triangles} triangles enclose (BVH, self-intersections)`;
    case 'sampling':
      return `placing collision samples on ${triangles} triangles`;
    case 'preparing':
      return `preparing the collision samples of ${triangles} triangles for the queries`;
  }
}

/** A build stage as a progress line says it: 'shape 2 of 3 ("bunny"), checking 3674 triangles'. */
export function buildStageText(p: BuildStage): string {
  const what = buildStepText(p.step, p.triangles);
  return p.shape === null ? what : `shape ${p.index + 1} of ${p.count} (${quote(p.shape)}), ${what}`;
}

/**
 * Bytes of OBJ text per triangle, to guess a file's triangles before parsing
 * it: a closed mesh has about half as many vertices as triangles, a "v" line
 * some 30 bytes and an "f" line 20 (with texture and normal indices more, so
 * the guess errs low and a progress display shows less, not more).
 */
const OBJ_BYTES_PER_TRIANGLE = 40;

/** The triangles an OBJ text of this many characters is guessed to hold (OBJ_BYTES_PER_TRIANGLE), for a progress display. */
export function objTrianglesGuess(chars: number): number {
  return Math.round(chars / OBJ_BYTES_PER_TRIANGLE);
}

/** Tells io.stage (if any) that shape `name` enters `step`. */
function tellStage(io: SceneIo, name: string, at: ShapeAt, step: BuildStep, triangles: number, estimate: number): void {
  io.stage?.({ step, shape: name, index: at.index, count: at.count, triangles, estimate });
}

/** A shape's index among the shapes being built and their number (BuildProgress, BuildStage). */
export interface ShapeAt {
  index: number;
  count: number;
}

/**
 * Rough cost of building a shape with `triangles` triangles and an SDF of
 * `nodes` nodes: memory in bytes and time in seconds on one core of a 2020s
 * desktop. Measured on the CPU backend (a sphere from 4k to 260k triangles,
 * grids from 48 to 256 cells): the bake, the self-intersection pass and the
 * collision samples grow with the triangles (about 20 us and 700 bytes
 * each), the grid with its nodes (0.3 us and 8 bytes each: the float32
 * values and the bake's scratch). Within a factor of two or three, which is
 * all a refusal or a progress display needs.
 */
export function shapeCost(triangles: number, nodes: number): { bytes: number; seconds: number } {
  return { bytes: 700 * triangles + 8 * nodes, seconds: 20e-6 * triangles + 0.3e-6 * nodes };
}

/** "1.5 GB", "700 MB", "12 kB". */
export function fmtBytes(b: number): string {
  if (b >= 1e9) return `${(b / 1e9).toPrecision(2)} GB`;
  if (b >= 1e6) return `${Math.round(b / 1e6)} MB`;
  return `${Math.max(1, Math.round(b / 1e3))} kB`;
}

/** "3 s", "4 min", "2 h". */
export function fmtSeconds(s: number): string {
  if (s >= 7200) return `${Math.round(s / 3600)} h`;
  if (s >= 120) return `${Math.round(s / 60)} min`;
  return s >= 10 ? `${Math.round(s)} s` : `${Number(s.toPrecision(1))} s`;
}

/** The range every derived quantity must lie in (see the file comment). */
export const DERIVED_MIN = 1e-100;
export const DERIVED_MAX = 1e100;
/** Smallest ratio of the smallest to the largest principal moment: below it the tensor cannot be inverted reliably. */
const MIN_MOMENT_RATIO = 1e-13;

const EMPTY_SAMPLES: CollisionSamples = { points: new Float32Array(0), vertexCount: 0, edgeCount: 0, edgeSamples: 0, edges: new Uint32Array(0) };

/** Short number for messages: 3 significant digits, exponent form far from 1. */
export function fmtValue(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(2).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return String(Number(x.toPrecision(3)));
}

/** Whether a derived mass or moment lies in the range the solver computes with (DERIVED_MIN..DERIVED_MAX). */
export function inRange(x: number): boolean {
  return x >= DERIVED_MIN && x <= DERIVED_MAX;
}

/** The limits in force: the caller's, else BUILD_LIMITS. */
function limitsOf(io: SceneIo): BuildLimits {
  return { ...BUILD_LIMITS, ...io.limits, names: { ...BUILD_LIMITS.names, ...io.limits?.names } };
}

/** SDF grid nodes of a shape whose mesh has these bounds (the layout both bakes use). */
function sdfNodeCount(mesh: TriMesh, sdf: SdfSettings): number {
  try {
    const dims = gridLayout(meshBounds(mesh), sdf.cells, sdf.padding).dims;
    const n = dims[0] * dims[1] * dims[2];
    // A mesh of zero extent (a scale of 5e-324 rounds every coordinate to 0
    // or one step above) has no cell size: validateMesh says it is too small.
    return Number.isFinite(n) ? n : 0;
  } catch {
    return 0; // an empty or non-finite mesh: validateMesh says what is wrong with it
  }
}

/** A shape's thinnest extent must span this many SDF cells, or the build refines its grid. */
const MIN_CELLS_ACROSS = 2;
/** ... to this many cells across its thinnest extent. */
const REFINED_CELLS_ACROSS = 3;
/** The most nodes a refinement gives a grid (about 1 s and 30 MB to bake, shapeCost). */
const REFINE_MAX_NODES = 4_000_000;

/**
 * The cells along the longest axis a shape's grid gets: `sdf.cells`, or more
 * when the shape's thinnest extent spans fewer than MIN_CELLS_ACROSS cells
 * (a floor or ramp made of a thin box: with no grid node inside it, nothing
 * detects a body passing into it, and bodies fell through). Refined to
 * REFINED_CELLS_ACROSS cells across, or as far as `maxNodes` allows.
 */
export function sdfCellsFor(bounds: { min: Vec3; max: Vec3 }, sdf: SdfSettings, maxNodes: number): number {
  const { longest, thinnest } = extents(bounds);
  if (!(thinnest > 0) || !(longest > 0) || (thinnest / longest) * sdf.cells >= MIN_CELLS_ACROSS) return sdf.cells;
  const nodes = (c: number): number => {
    const d = gridLayout(bounds, c, sdf.padding).dims;
    return d[0] * d[1] * d[2];
  };
  const want = Math.ceil((REFINED_CELLS_ACROSS * longest) / thinnest);
  if (!Number.isFinite(want)) return sdf.cells;
  // The largest count within the node budget (nodes grow with the count).
  let lo = sdf.cells, hi = want;
  if (nodes(hi) <= maxNodes) return hi;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (nodes(mid) <= maxNodes) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** The longest and the thinnest extent of a box. */
function extents(b: { min: Vec3; max: Vec3 }): { longest: number; thinnest: number } {
  const x = b.max[0] - b.min[0], y = b.max[1] - b.min[1], z = b.max[2] - b.min[2];
  return { longest: Math.max(x, y, z), thinnest: Math.min(x, y, z) };
}

/**
 * Refuses a shape whose triangles or SDF nodes exceed the limits, before the
 * costly part of building it (validation, self-intersection, bake), saying
 * what it would cost and how to go ahead anyway.
 */
function checkCost(name: string, d: Exclude<ShapeDesc, { type: 'plane' }>, mesh: TriMesh, scene: SceneDesc, io: SceneIo): void {
  const limits = limitsOf(io);
  const tris = mesh.indices.length / 3;
  const nodes = sdfNodeCount(mesh, d.sdf);
  const cost = shapeCost(tris, nodes);
  const costs = `building it would take about ${fmtSeconds(cost.seconds)} and ${fmtBytes(cost.bytes)}`;
  const where = childPath('shapes', name);
  if (tris > limits.maxTriangles) {
    const fewer = d.type === 'mesh' ? 'simplify the mesh' : 'use fewer "segments"';
    throw new InputError(
      `the shape has ${tris} triangles, more than the limit of ${limits.maxTriangles} per shape (${costs}); ${fewer}, or raise the limit (${limits.names.maxTriangles.replace(/\bN\b/, String(tris))})`,
      scene.file,
      where,
    );
  }
  if (nodes > limits.maxSdfNodes) {
    throw new InputError(
      `its SDF grid would have ${nodes} nodes ("sdf": {"cells": ${d.sdf.cells}}), more than the limit of ${limits.maxSdfNodes} per shape (${costs}); ` +
        `lower "cells", or raise the limit (${limits.names.maxSdfNodes.replace(/\bN\b/, String(nodes))})`,
      scene.file,
      where,
    );
  }
}

/**
 * A box, cylinder, capsule or torus thinner than MIN_THICKNESS_REL of its
 * size, as bad input at the key that makes it so (its mesh would be refused
 * as degenerate triangles or as too thin, naming neither the key nor the
 * value the file gave).
 */
function checkThinParameters(name: string, d: ShapeDesc, scene: SceneDesc): void {
  const r = (x: number) => fmtValue(Number(x.toPrecision(3)));
  const thin = (key: string, ratio: number, message: string): void => {
    if (!(ratio < MIN_THICKNESS_REL)) return;
    throw new InputError(message, scene.file, childPath(childPath('shapes', name), key));
  };
  switch (d.type) {
    case 'box': {
      const [x, y, z] = d.size;
      const ratio = Math.min(x, y, z) / Math.max(x, y, z);
      thin('size', ratio, `the box is ${fmtValue(x)} x ${fmtValue(y)} x ${fmtValue(z)} m, its shortest side ${r(ratio)} of its longest; expected every side at least ${MIN_THICKNESS_REL} of the longest`);
      break;
    }
    case 'cylinder':
    case 'capsule': {
      const ratio = Math.min(d.radius, d.height) / Math.max(d.radius, d.height);
      const [small, big] = d.radius < d.height ? ['radius', 'height'] : ['height', 'radius'];
      thin(small, ratio, `the ${d.type}'s ${small} is ${r(ratio)} of its ${big} (radius ${fmtValue(d.radius)} m, height ${fmtValue(d.height)} m); expected at least ${MIN_THICKNESS_REL} of it`);
      break;
    }
    case 'torus': {
      const ratio = d.minorRadius / d.majorRadius;
      thin('minorRadius', ratio, `minorRadius ${fmtValue(d.minorRadius)} m is ${r(ratio)} of majorRadius ${fmtValue(d.majorRadius)} m; expected at least ${MIN_THICKNESS_REL} of it`);
      break;
    }
  }
}

/**
 * The shape's mesh in its own frame, validated and repaired. Errors name the
 * scene, the shape (and for a mesh file, the file and its line or edge) once each.
 */
async function shapeMesh(name: string, d: Exclude<ShapeDesc, { type: 'plane' }>, scene: SceneDesc, io: SceneIo, at: ShapeAt): Promise<ValidatedMesh> {
  const where = d.type === 'mesh' ? childPath(childPath('shapes', name), 'path') : childPath('shapes', name);
  const label = d.type === 'mesh' ? d.path : where;
  const warn = (w: string) => io.warn?.(`${fileLabel(scene.file)}: ${d.type === 'mesh' ? `${where}: ` : ''}${w}`);
  const fail = (e: unknown): never => {
    if (e instanceof InputError) {
      // "scene.json: shapes.bunny.path: bunny.obj: line 12: ..." or "scene.json: shapes.box: ...".
      const inner = [d.type === 'mesh' ? d.path : '', e.where].filter(Boolean).join(': ');
      throw new InputError((inner ? `${inner}: ` : '') + bareMessage(e), scene.file, where);
    }
    throw new InputError(`${d.type} shape: ${(e as Error).message}`, scene.file, where);
  };
  checkThinParameters(name, d, scene);
  let mesh: TriMesh;
  /** An OBJ's vertex numbers and face lines, so mesh errors count as the file does. */
  let numbering: MeshNumbering = {};
  try {
    switch (d.type) {
      case 'box':
        mesh = boxMesh(d.size);
        break;
      case 'sphere':
        mesh = sphereMesh(d.radius, d.segments[0], d.segments[1]);
        break;
      case 'cylinder':
        mesh = cylinderMesh(d.radius, d.height, d.segments);
        break;
      case 'capsule':
        mesh = capsuleMesh(d.radius, d.height, d.segments[0], d.segments[1]);
        break;
      case 'torus':
        mesh = torusMesh(d.majorRadius, d.minorRadius, d.segments[0], d.segments[1]);
        break;
      case 'revolve':
        mesh = revolveMesh(d.profile, d.segments);
        break;
      case 'extrude':
        mesh = extrudeMesh(d.polygon, d.depth);
        break;
      case 'mesh': {
        let text: string;
        try {
          text = await io.readText(d.resolvedPath);
        } catch (e) {
          // A reader's error at a place in the file (bytes that are not UTF-8 text, at a line and
          // column) names the mesh as the scene wrote it, with that place, like the OBJ parser's.
          if (e instanceof InputError && e.where !== undefined) fail(e);
          // Otherwise the reader's InputError names the path already: say it once, first, like a file name.
          const why = e instanceof InputError ? bareMessage(e) : describeFsError(e, 'mesh file');
          throw new InputError(`${quote(d.resolvedPath, 200)}: ${why}`, scene.file, where);
        }
        const guess = objTrianglesGuess(text.length);
        tellStage(io, name, at, 'parsing', guess, shapeCost(guess, 0).seconds);
        const r = parseObjWithWarnings(text, d.path);
        numbering = r.numbering;
        for (const w of r.warnings) warn(w);
        mesh = d.scale === 1 ? r.mesh : scaledMesh(r.mesh, d.scale);
        break;
      }
    }
  } catch (e) {
    if (e instanceof InputError && e.file === scene.file) throw e;
    return fail(e);
  }
  checkCost(name, d, mesh, scene, io);
  const tris = mesh.indices.length / 3;
  tellStage(io, name, at, 'validating', tris, shapeCost(tris, sdfNodeCount(mesh, d.sdf)).seconds);
  try {
    const v = validateMesh(mesh, label, numbering);
    for (const w of v.warnings) warn(w);
    return v;
  } catch (e) {
    return fail(e);
  }
}

/** A shape's geometry and mass properties, before its SDF. */
interface PreparedShape {
  /** The validated mesh in the shape's own frame. */
  own: TriMesh;
  solid: SolidAnalysis;
  mass: MassProperties;
  /** Cells along the longest axis its SDF gets (sdfCellsFor). */
  cells: number;
}

/** Mesh, what it encloses and its mass properties, every derived quantity checked. */
async function prepareShape(name: string, d: Exclude<ShapeDesc, { type: 'plane' }>, scene: SceneDesc, io: SceneIo, at: ShapeAt): Promise<PreparedShape> {
  const valid = await shapeMesh(name, d, scene, io, at);
  const own = valid.mesh;
  const where = childPath('shapes', name);
  const tris = own.indices.length / 3;
  tellStage(io, name, at, 'analysing', tris, shapeCost(tris, sdfNodeCount(own, d.sdf)).seconds);
  let solid: SolidAnalysis;
  try {
    solid = analyseSolid(own);
  } catch (e) {
    // What validation cannot see: a mesh that passed its checks yet encloses
    // nothing once its volume is summed (a revolve profile of 0.5 m^2 set
    // 1e12 m up the axis, its triangles' terms cancelling to 0).
    if (e instanceof RangeError) throw new InputError(`${e.message} (the shape's own coordinates lie far from its size, or it is flat)`, scene.file, where);
    if (e instanceof TangledMeshError) throw new InputError(e.message, scene.file, where);
    throw e;
  }
  if (!solid.simple) io.warn?.(`${fileLabel(scene.file)}: ${where}: ${describeSolid(solid, own, valid.names.triangle)}`);
  const mass = solid.mass;
  if (!inRange(mass.volume)) {
    throw new InputError(`the shape's volume is ${fmtValue(mass.volume)} m^3; expected 1e-100 to 1e100 m^3`, scene.file, where);
  }
  const b = meshBounds(solid.boundary);
  const longest = Math.max(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]);
  const cell = longest / d.sdf.cells;
  if (!inRange(cell)) {
    throw new InputError(`the SDF cell size would be ${fmtValue(cell)} m; expected 1e-100 to 1e100 m`, scene.file, where);
  }
  const ob = meshBounds(own);
  const cells = sdfCellsFor(ob, d.sdf, Math.min(REFINE_MAX_NODES, limitsOf(io).maxSdfNodes));
  if (cells > d.sdf.cells) {
    const { thinnest, longest: long } = extents(ob);
    const nodes = sdfNodeCount(own, { ...d.sdf, cells });
    io.warn?.(
      `${fileLabel(scene.file)}: ${where}: its thinnest extent (${fmtValue(thinnest)} m) spans ${fmtValue((thinnest / long) * d.sdf.cells)} cells of its SDF ` +
        `("sdf": {"cells": ${d.sdf.cells}}), too few to catch a body passing into it; baked with ${cells} cells instead ` +
        `(${nodes} nodes, about ${fmtSeconds(shapeCost(0, nodes).seconds)})` + (d.type === 'box' ? '; a floor is cheaper as a plane' : ''),
    );
  }
  return { own, solid, mass, cells };
}

/**
 * Loads and checks a shape without baking its SDF (for shapes no body uses):
 * the same errors and warnings as buildShape.
 */
export async function checkShape(name: string, d: ShapeDesc, scene: SceneDesc, io: SceneIo, at: ShapeAt = { index: 0, count: 1 }): Promise<void> {
  if (d.type !== 'plane') await prepareShape(name, d, scene, io, at);
}

/** A shape's volume and unit-density inertia about its centre of mass, without its SDF; null for a plane. */
export interface ShapeMass {
  volume: number;
  inertiaUnit: Float64Array;
  /** The cell of the SDF it gets (m). */
  cellSize: number;
  /**
   * The centre of mass in the shape's own frame and the farthest vertex from
   * it (m): RigidShape's comOffset and radius as the build makes them, but for
   * "massFrom": "sdf", whose centre the baked field moves by a fraction of a cell.
   */
  comOffset: Vec3;
  radius: number;
}

export async function shapeMass(name: string, d: ShapeDesc, scene: SceneDesc, io: SceneIo, at: ShapeAt = { index: 0, count: 1 }): Promise<ShapeMass | null> {
  if (d.type === 'plane') return null;
  const { own, mass, cells } = await prepareShape(name, d, scene, io, at);
  const com = centreOfMass(own, mass);
  return {
    volume: mass.volume,
    inertiaUnit: mass.inertia,
    cellSize: gridLayout(meshBounds(own), cells, d.sdf.padding).cellSize,
    comOffset: com,
    radius: meshRadius(translatedMesh(own, com)),
  };
}

/** The centre of mass the body frame is centred on, rounding noise snapped (a symmetric shape's is exactly 0). */
function centreOfMass(own: TriMesh, mass: MassProperties): Vec3 {
  let size = 1e-300;
  for (let i = 0; i < own.positions.length; i++) size = Math.max(size, Math.abs(own.positions[i]!));
  return mass.centerOfMass.map((c) => (Math.abs(c) < 1e-12 * size ? 0 : c)) as Vec3;
}

/** The farthest vertex from the origin of the mesh's frame. */
function meshRadius(mesh: TriMesh): number {
  let radius = 0;
  for (let i = 0; i < mesh.positions.length; i += 3) {
    radius = Math.max(radius, Math.hypot(mesh.positions[i]!, mesh.positions[i + 1]!, mesh.positions[i + 2]!));
  }
  return radius;
}

/**
 * Everything createWorld checks, without baking a field or building a world
 * (`stackfield check`): every shape loaded and checked, every dynamic body's
 * mass and inertia in range. Returns each shape's mass properties.
 */
export async function checkScene(scene: SceneDesc, io: SceneIo): Promise<Map<string, ShapeMass | null>> {
  const out = new Map<string, ShapeMass | null>();
  const shapes = Object.entries(scene.shapes);
  for (const [index, [name, d]] of shapes.entries()) out.set(name, await shapeMass(name, d, scene, io, { index, count: shapes.length }));
  const masses = scene.bodies.map((b, bi) => {
    const s = out.get(b.shape);
    if (s) checkPositionPrecision(b.position, s.cellSize, scene.file, `bodies[${bi}].position`, io.warn, s.comOffset);
    return !b.static && s ? bodyMassProperties(s, b, scene.file, `bodies[${bi}]`).mass : 0;
  });
  checkForceSpeeds(scene, (i) => masses[i]!);
  return out;
}

/**
 * Builds one shape. `at` (its index among the shapes being built and their
 * number) is passed on to `io.progress`.
 */
export async function buildShape(name: string, d: ShapeDesc, scene: SceneDesc, io: SceneIo, at: ShapeAt = { index: 0, count: 1 }): Promise<RigidShape> {
  const u = await startShape(name, d, scene, io, at);
  if (!('job' in u)) return u;
  const [grid] = await bakerOf(io)([u.job]);
  return finishShape(u, grid!);
}

/**
 * A mesh shape loaded, checked and re-centred, waiting for its SDF
 * (startShape): `job` is the bake it needs. buildWorld starts every shape,
 * bakes all their fields in one call (a GPU backend records them into one
 * submission), then finishes each (finishShape).
 */
export interface UnbakedShape {
  name: string;
  desc: Exclude<ShapeDesc, { type: 'plane' }>;
  scene: SceneDesc;
  io: SceneIo;
  /** The mesh in the body frame (centred on its centre of mass). */
  mesh: TriMesh;
  /** Where the centre of mass lies in the shape's own frame, and the mesh's size (for snapping rounding noise). */
  com: Vec3;
  size: number;
  mass: MassProperties;
  /** The mesh whose winding signs the baked field (the job bakes the distance to its boundary), or null. */
  signBy: TriMesh | null;
  job: BakeJob;
  /** Its index among the shapes being built and their number, and shapeCost's estimate (s), for io.stage. */
  at: ShapeAt;
  estimate: number;
}

/** The bake of every job of a batch through `io` (bakeAll, else bake one by one, else the CPU bake). */
export function bakerOf(io: SceneIo): (jobs: readonly BakeJob[]) => Promise<SdfGrid[]> {
  if (io.bakeAll) return io.bakeAll;
  const one = io.bake ?? (async (m: TriMesh, o: BakeOptions) => bakeSdfCpu(m, o));
  return async (jobs) => {
    const out: SdfGrid[] = [];
    for (const { mesh, ...o } of jobs) out.push(await one(mesh, o as { cells: number; padding: number }));
    return out;
  };
}

/** A shape up to its SDF: a plane whole, a mesh shape as an UnbakedShape. */
export async function startShape(name: string, d: ShapeDesc, scene: SceneDesc, io: SceneIo, at: ShapeAt = { index: 0, count: 1 }): Promise<RigidShape | UnbakedShape> {
  if (d.type === 'plane') {
    const n = d.normal;
    return {
      name,
      kind: 'plane',
      mesh: planeQuadMesh(n, 60),
      samples: EMPTY_SAMPLES,
      sdf: null,
      comOffset: [0, 0, 0],
      volume: 1,
      inertiaUnit: Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1),
      localBounds: { min: [-60, -60, -60], max: [60, 60, 60] },
      radius: Infinity,
      planeNormal: [n[0], n[1], n[2]],
    };
  }
  const { own, solid, mass, cells } = await prepareShape(name, d, scene, io, at);
  const com = centreOfMass(own, mass);
  let size = 1e-300;
  for (let i = 0; i < own.positions.length; i++) size = Math.max(size, Math.abs(own.positions[i]!));
  const mesh = translatedMesh(own, com);
  const sdfOpts: SdfSettings = { ...d.sdf, cells };
  const estimate = shapeCost(own.indices.length / 3, sdfNodeCount(own, sdfOpts)).seconds;
  const report = io.progress;
  const onProgress = report ? (fraction: number) => report({ shape: name, index: at.index, count: at.count, fraction, estimate }) : undefined;
  onProgress?.(0);
  // A mesh that is not one simple closed surface: the distance to the
  // boundary of what it encloses, signed by the mesh's winding (bakeSolid).
  const boundary = solid.simple ? null : translatedMesh(solid.boundary, com);
  const job: BakeJob = { mesh: boundary ?? mesh, cells: sdfOpts.cells, padding: sdfOpts.padding, ...(onProgress ? { onProgress } : {}) };
  const u: UnbakedShape = { name, desc: d, scene, io, mesh, com, size, mass, signBy: boundary ? mesh : null, job, at, estimate };
  // A sphere, capsule or cylinder takes the exact field of its solid
  // (finishShape), not its tessellation's: it has nothing to bake (a GPU
  // bake of the 2 944-triangle default sphere took 20 s on SwiftShader, to
  // be thrown away).
  if (trueSolid(d)) {
    const shape = finishShape(u, null);
    onProgress?.(1);
    return shape;
  }
  return u;
}

/** The shape from its baked field (the rest of buildShape after the bake; null for a true solid, which bakes nothing). */
export function finishShape(u: UnbakedShape, baked: SdfGrid | null): RigidShape {
  const { name, desc: d, scene, io, com, size, mass: mp } = u;
  let mesh = u.mesh;
  // A sphere or capsule is the solid, not its tessellation
  // (trueSolids.ts): its field the exact distance to it, so a sphere's
  // contact normals point at its centre and a frictionless impact along a
  // line that misses the centres gives no spin (the facet normals tilt up to
  // half a facet: two 16 x 12 spheres struck at 30 degrees left 87.6 degrees
  // apart, spinning at 2.2 rad/s).
  const solidOf = trueSolid(d);
  let sdf: SdfGrid;
  if (solidOf) sdf = exactField(solidOf, [-com[0], -com[1], -com[2]], u.job.cells ?? DEFAULT_CELLS, u.job.padding ?? DEFAULT_PADDING);
  else if (baked) {
    sdf = baked;
    if (u.signBy) signByWinding(sdf, u.signBy);
  } else throw new Error(`shape ${quote(name)} was finished without its baked field`);
  if (!hasInsideNode(sdf)) {
    io.warn?.(
      `${fileLabel(scene.file)}: ${childPath('shapes', name)}: no SDF grid node lies inside the shape (cell ${fmtValue(sdf.cellSize)} m is too coarse for its thinnest part), ` +
        'so other bodies cannot detect penetrating it; raise "sdf": {"cells": ...}',
    );
  }
  let volume = mp.volume, inertiaUnit = mp.inertia;
  if (d.massFrom === 'sdf') {
    // The seed's route (4.12-4.17): the field's inside cells. Its centre of
    // mass is off the mesh integral's by a fraction of a cell; the mesh and
    // field move with it, so the body's frame stays centred on its own.
    const g = sdfMass(sdf, scene.file, childPath('shapes', name));
    const c = g.centerOfMass.map((x) => (Math.abs(x) < 1e-12 * size ? 0 : x)) as Vec3;
    mesh = translatedMesh(mesh, c);
    sdf = { ...sdf, origin: [sdf.origin[0] - c[0], sdf.origin[1] - c[1], sdf.origin[2] - c[2]] };
    for (let k = 0; k < 3; k++) com[k] = com[k]! + c[k]!;
    volume = g.volume;
    inertiaUnit = g.inertia;
  }
  // Face samples on triangles whose interior is wider than ~4 SDF cells (see samples.ts).
  tellStage(io, name, u.at, 'sampling', mesh.indices.length / 3, u.estimate);
  let samples = buildSamples(mesh, scene.solver.edgeSamples, 2 * sdf.cellSize, scene.solver.edgeSpacing * sdf.cellSize);
  const bounds = meshBounds(mesh);
  let radius = meshRadius(mesh);
  if (solidOf) {
    // Its samples on the solid, and (unless they come from the field) its
    // mass properties the solid's (trueSolids.ts).
    const c: Vec3 = [-com[0], -com[1], -com[2]];
    samples = samplesOnSolid(mesh, samples, solidOf, c);
    if (d.massFrom !== 'sdf') {
      volume = solidOf.volume;
      const [ix, iy, iz] = solidOf.moments;
      inertiaUnit = Float64Array.of(ix, 0, 0, 0, iy, 0, 0, 0, iz);
    }
    // The solid bulges past its facets: the bounds take in its samples.
    const q = samples.points;
    for (let i = 0; i < q.length; i += 4) {
      for (let k = 0; k < 3; k++) {
        bounds.min[k] = Math.min(bounds.min[k]!, q[i + k]!);
        bounds.max[k] = Math.max(bounds.max[k]!, q[i + k]!);
      }
      radius = Math.max(radius, Math.sqrt(q[i]! * q[i]! + q[i + 1]! * q[i + 1]! + q[i + 2]! * q[i + 2]!));
    }
  }
  return {
    name,
    kind: 'mesh',
    mesh,
    samples,
    sdf,
    comOffset: [com[0], com[1], com[2]],
    volume,
    inertiaUnit,
    localBounds: bounds,
    radius,
    ...(d.type === 'sphere' ? { sphere: { centre: [-com[0], -com[1], -com[2]] as Vec3, radius: d.radius } } : {}),
    ...convexOf(d, [-com[0], -com[1], -com[2]]),
  };
}

/** RigidShape.convex of a box, capsule or cylinder about `centre`: a sphere meets it at one exact point. */
function convexOf(d: ShapeDesc, centre: Vec3): { convex?: ConvexSolid } {
  if (d.type === 'box') return { convex: { type: 'box', centre, half: [d.size[0] / 2, d.size[1] / 2, d.size[2] / 2] } };
  if (d.type === 'capsule') return { convex: { type: 'capsule', centre, radius: d.radius, halfLength: d.height / 2 - d.radius } };
  if (d.type === 'cylinder') return { convex: { type: 'cylinder', centre, radius: d.radius, halfLength: d.height / 2 } };
  return {};
}

/** massFromSdf, its failure (no cell inside) and an out-of-range volume as the shape's InputError. */
function sdfMass(g: SdfGrid, file: string, where: string): MassProperties {
  let m: MassProperties;
  try {
    m = massFromSdf(g);
  } catch (e) {
    throw new InputError(`"massFrom": "sdf": ${e instanceof Error ? e.message : String(e)}; raise "sdf": {"cells": ...} or use the mesh integral`, file, where);
  }
  if (!inRange(m.volume)) throw new InputError(`"massFrom": "sdf" gives a volume of ${fmtValue(m.volume)} m^3; expected 1e-100 to 1e100 m^3`, file, where);
  return m;
}

function hasInsideNode(g: SdfGrid): boolean {
  const v = g.values;
  for (let i = 0; i < v.length; i++) if (v[i]! < 0) return true;
  return false;
}

/**
 * Mass and inverse inertia of a dynamic body, every derived quantity checked
 * (file comment); the error names the body and the value, and which input
 * ("mass" or "density") produced it.
 */
export function bodyMassProperties(
  s: Pick<RigidShape, 'volume' | 'inertiaUnit'>,
  b: { name: string; mass?: number; density?: number },
  file: string,
  where: string,
): { mass: number; invInertia: Float64Array } {
  const density = b.mass !== undefined ? b.mass / s.volume : (b.density ?? 1000);
  const mass = density * s.volume;
  const source = b.mass !== undefined ? '"mass"' : `"density" ${fmtValue(density)} kg/m^3 x volume ${fmtValue(s.volume)} m^3`;
  const who = `${where} (${quote(b.name)})`;
  if (!inRange(mass)) {
    throw new InputError(`mass ${fmtValue(mass)} kg (from ${source}) is outside the range the solver computes with (1e-100 to 1e100 kg)`, file, who);
  }
  const I = new Float64Array(9);
  for (let k = 0; k < 9; k++) I[k] = s.inertiaUnit[k]! * density;
  const moments = principalInertia(I).moments;
  const list = moments.map(fmtValue).join(', ');
  if (!moments.every(inRange)) {
    throw new InputError(`principal moments of inertia ${list} kg m^2 (from ${source}) are outside the range the solver computes with (1e-100 to 1e100 kg m^2)`, file, who);
  }
  if (!(moments[0] >= MIN_MOMENT_RATIO * moments[2])) {
    throw new InputError(`principal moments of inertia ${list} kg m^2 differ by more than 1e13: the inertia tensor cannot be inverted reliably (a needle or a flat shape)`, file, who);
  }
  let inv: Float64Array;
  try {
    inv = invertInertia(I);
  } catch (e) {
    throw new InputError(`${(e as Error).message} (principal moments ${list} kg m^2)`, file, who);
  }
  if (!inv.every(Number.isFinite)) throw new InputError(`the inverse inertia tensor is not finite (principal moments ${list} kg m^2)`, file, who);
  return { mass, invInertia: inv };
}

