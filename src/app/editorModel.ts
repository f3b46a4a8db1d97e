/**
 * The robot editor's model (docs/LIBRARY_FORMAT.md, "The editor"; seed 003
 * 4.1: a robot is bodies made from shapes, joined by joints, with motors).
 * Pure: the editor's state -> a `stackfield-library/1` file, and that file
 * checked as `stackfield check` checks it. The DOM side is editorPanel.ts.
 *
 * Bodies are placed without rotation, so a joint's pivot and axis, given in
 * the robot's frame, go into each part's shape frame by a translation alone:
 * anchorA = pivot - positionA, axisA = axisB = axis.
 */
import { InputError } from '../errors.ts';
import type { Vec3 } from '../geometry/mesh.ts';
import { formatJson } from '../scene/json.ts';
import { LIBRARY_FORMAT_ID, LIBRARY_TOP_LEVEL, readSource } from '../scene/library.ts';
import { checkLibrarySource, librarySummary } from '../scene/libraryCheck.ts';
import type { JsonObject } from '../scene/reader.ts';

/** A body's shape: a built-in one, or an OBJ file the user opened (kept by name, with its text for checking). */
export type EditorShape =
  | { type: 'box'; size: Vec3 }
  | { type: 'sphere'; radius: number }
  | { type: 'cylinder'; radius: number; height: number }
  | { type: 'mesh'; file: string; text: string; scale?: number };

export interface EditorBody {
  name: string;
  shape: EditorShape;
  /** kg/m^3 (`density`) or kg (`mass`). */
  massMode: 'density' | 'mass';
  massValue: number;
  /** One of EDITOR_MATERIALS' names. */
  material: string;
  /** The shape frame's origin in the robot's frame, m. */
  position: Vec3;
}

export interface EditorJoint {
  name: string;
  type: 'hinge' | 'ball';
  bodyA: string;
  bodyB: string;
  /** The pivot in the robot's frame, m. */
  pivot: Vec3;
  /** A hinge's axis in the robot's frame. */
  axis: Vec3;
  /** A hinge's motor: target speed (rad/s, B relative to A) and the most torque (N m). */
  motor?: { speed: number; maxTorque: number };
}

export interface EditorState {
  robot: string;
  description: string;
  bodies: EditorBody[];
  joints: EditorJoint[];
}

/** The materials the editor offers (written into the library when used). */
export const EDITOR_MATERIALS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  rubber: { friction: 1, restitution: 0 },
  plastic: { friction: 0.3, restitution: 0 },
  steel: { friction: 0.2, restitution: 0.2 },
  wood: { friction: 0.5, restitution: 0.1 },
};

const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];

/** The template and shape name of a body: "robot_body". */
export function templateName(state: EditorState, body: EditorBody): string {
  return `${state.robot}_${body.name}`;
}

function shapeJson(s: EditorShape): JsonObject {
  switch (s.type) {
    case 'box':
      return { type: 'box', size: [...s.size] };
    case 'sphere':
      return { type: 'sphere', radius: s.radius };
    case 'cylinder':
      return { type: 'cylinder', radius: s.radius, height: s.height };
    case 'mesh':
      return { type: 'mesh', path: s.file, ...(s.scale !== undefined && s.scale !== 1 ? { scale: s.scale } : {}) };
  }
}

/**
 * The library the state stands for: a shape and a body template per body
 * (usable on their own), the materials used, and the robot of all bodies,
 * its joints and motors. Names the state does not resolve (a joint's body)
 * are written as they are: the check names them.
 */
export function editorLibrary(state: EditorState): JsonObject {
  const shapes: JsonObject = {};
  const materials: JsonObject = {};
  const bodies: JsonObject = {};
  for (const b of state.bodies) {
    const name = templateName(state, b);
    shapes[name] = shapeJson(b.shape);
    const mat = EDITOR_MATERIALS[b.material];
    if (mat) materials[b.material] = { ...mat };
    bodies[name] = { shape: name, ...(b.material ? { material: b.material } : {}), [b.massMode]: b.massValue };
  }
  const at = new Map(state.bodies.map((b) => [b.name, b.position] as const));
  const joints = state.joints.map((j): JsonObject => {
    const pa = at.get(j.bodyA) ?? [0, 0, 0];
    const pb = at.get(j.bodyB) ?? [0, 0, 0];
    return {
      name: j.name,
      type: j.type,
      bodyA: j.bodyA,
      bodyB: j.bodyB,
      anchorA: sub(j.pivot, pa),
      anchorB: sub(j.pivot, pb),
      ...(j.type === 'hinge' ? { axisA: [...j.axis], axisB: [...j.axis] } : {}),
    };
  });
  const motors = state.joints
    .filter((j) => j.motor)
    .map((j): JsonObject => ({ name: `${j.name}-motor`, joint: j.name, speed: j.motor!.speed, maxTorque: j.motor!.maxTorque }));
  const robot: JsonObject = {
    ...(state.description ? { description: state.description } : {}),
    parts: state.bodies.map((b) => ({ alias: b.name, template: templateName(state, b), position: [...b.position] })),
    ...(joints.length ? { joints } : {}),
    ...(motors.length ? { motors } : {}),
  };
  return {
    format: LIBRARY_FORMAT_ID,
    shapes,
    ...(Object.keys(materials).length ? { materials } : {}),
    bodies,
    ...(state.bodies.length ? { robots: { [state.robot]: robot } } : {}),
  };
}

/** The library's text, as saved. */
export function editorLibraryText(state: EditorState): string {
  return formatJson(editorLibrary(state)) + '\n';
}

/**
 * Checks the library text as `stackfield check` does (every key, reference,
 * robot, mesh and mass), the state's OBJ files read from memory; resolves to
 * check's summary ("library, 2 shapes, ..."), or throws its InputError (the
 * file, the JSON path, what was expected).
 */
export async function checkEditorLibrary(state: EditorState, file: string, warn: (m: string) => void = () => {}): Promise<string> {
  const meshes = new Map<string, string>();
  for (const b of state.bodies) if (b.shape.type === 'mesh') meshes.set(b.shape.file, b.shape.text);
  if (state.bodies.length === 0) throw new InputError('the robot has no bodies yet: add one', file, 'robots');
  const root = readSource(editorLibraryText(state), file, '', LIBRARY_TOP_LEVEL);
  const io = {
    readText: async (p: string): Promise<string> => {
      const text = meshes.get(p) ?? meshes.get(p.replace(/^.*[\\/]/, ''));
      if (text === undefined) throw new Error(`"${p}" is not open in the editor`);
      return text;
    },
  };
  return librarySummary(await checkLibrarySource(root, io, warn), root);
}

/** The scene that tries the robot: a floor and one instance, the library included by name. */
export function tryScene(state: EditorState, libraryFile: string, lift = 0.3): JsonObject {
  return {
    format: 'stackfield-scene/1',
    include: [libraryFile],
    shapes: { floor: { type: 'plane' } },
    bodies: [{ name: 'floor', shape: 'floor', static: true }],
    robots: [{ name: state.robot, robot: state.robot, position: [0, lift, 0] }],
  };
}
