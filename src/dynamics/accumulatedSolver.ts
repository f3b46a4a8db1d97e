/**
 * The accumulated contact stage (`"contactSolver": "accumulated"`; docs/ALGORITHM.md
 * 4.6): persistent contact points, manifold reduction, one prepare per step,
 * and sub-stepped soft contact passes with warm starting, after the pattern
 * of Box2D v3's "soft step" (ALGORITHM.md 9 has the public facts it rests on).
 *
 * Per step, on the contact points the narrow phase found for the contact
 * phase (contacts.ts), in order:
 *
 *   reduce      per pair, the points are clustered by normal (the deepest
 *               point left leads a cluster; points whose normal is within
 *               ~25 degrees of it join) and each cluster keeps at most
 *               MANIFOLD_POINTS of them: the deepest, the farthest from it,
 *               the one adding the largest triangle, the one adding the most
 *               area on the other side, the last three only from points at
 *               most max(TAKE_CELLS cells, half the leader's depth) shallower
 *               than the leader (a ring sunk into the floor is lifted by
 *               points around its sunk circle, not rocked about one deep
 *               point by the barely touching rim); against a plane, the
 *               spans weighted by how near each point touches now.
 *               Detection keeps every sample; the
 *               solver sees a manifold of <= 4 points with one normal (the
 *               members' depth-weighted mean), each with friction, plus a
 *               rolling and a spinning row per manifold. A face against a
 *               static body (mLever) has its points' friction act with no
 *               lever about the normal through its centre, and its spin row
 *               holds the spin up to mu r_s j_n (r_s: the pressed faces'
 *               mean distance from the centre, patches.ts faceSpinRadius).
 *   match       every point is keyed by (pair, side, sample): a sample is a
 *               fixed body-local point, so the key names the same material
 *               point step after step. Last step's store is in the same
 *               order (pairs are canonical, points sorted by key within a
 *               pair), and one sorted merge gives each new point its old
 *               accumulated impulses (normal, and friction as a world vector
 *               projected on the new tangents); new points share what the
 *               manifold of the closest normal carried beyond its matched
 *               points (a curved patch's deepest samples change from step to
 *               step), or start at 0. A
 *               point kept last step wins a near tie in the reduction, so the
 *               manifold of a resting face does not wander from sample to
 *               sample of equal depth and lose its warm start (but against
 *               a plane the deepest always leads: a rocking body's next
 *               sample must lead as soon as it is deepest).
 *   prepare     anchors (from the current centres), normals, tangents, the
 *               two bodies' parts of each row's effective mass, base
 *               separations (at the current poses) and friction, computed
 *               once into flat arrays. A curved patch against a plane is
 *               anchored where the surfaces meet half a step on, with the
 *               normal and gap where they meet at the current poses
 *               (meetsCurved: a rolling ball's samples would otherwise
 *               carry the step's turn; MEET_AHEAD). One
 *               that touches with creases the roll runs along (a lying
 *               cylinder's rims, a coarse tube's rings, where the surfaces'
 *               meeting point cannot be found) has its points moved along
 *               the roll to the centre of its touching points (rollCentre,
 *               rollsAlongCreases).
 *   substeps    SUBSTEPS times: gravity (and the external forces) for h = dt / SUBSTEPS, warm start
 *               (the accumulated impulses applied again; with `warmEnergy`,
 *               from the second substep on scaled per island so that they
 *               add no kinetic energy), a solve, the
 *               push-out, positions advanced by h, and a relax; the
 *               joints' velocity pass (ConstraintSystem.velocityStabilize)
 *               runs before the solve and before the relax, so joints and
 *               contacts are solved together and the contacts have the last
 *               word (joints run once around the stage pulled jointed rings
 *               43 mm into each other and kept them shaking at 70 mm/s;
 *               after the relax, the joints left hanging rings falling at
 *               half of g dt). By default
 *               the push-out is a split impulse: the solve and relax are
 *               rigid rows (a gap still open is a speculative contact that
 *               may close within the substep, no more), and the depth past
 *               the slop is pushed out on pseudo velocities (PSEUDO_ITERS
 *               sweeps, at the soft rate of CONTACT_HERTZ over DAMPING_RATIO,
 *               at most MAX_PUSH; the lower body of a supporting manifold
 *               frozen, level by level, so a stack's push-out climbs it in one
 *               sweep) that move the substep's positions and are
 *               dropped, so no push-out ever becomes velocity. With
 *               `splitImpulse` off the solve is Box2D's soft contact
 *               (the bias in the velocities, taken out again by the relax);
 *               kept for comparison: on 60 landing rings it added 450 J of
 *               kinetic energy where the split impulse adds 7, and it let a
 *               tower of 20 cubes lean 13 mm in 8 s where the split impulse
 *               holds it within 0.1 mm. A manifold's normal rows are swept
 *               LOCAL_SWEEPS times in the relax. Separations inside the
 *               substeps are the base separation plus the relative motion of
 *               the anchors to first order; there is no query inside a
 *               substep.
 *   shock       the last relax runs level by level (manifolds are built in
 *               the contact graph's order), each level swept until it
 *               changes no velocity, the lower body of a supporting manifold
 *               with its inverse mass and inertia scaled by SHOCK_SCALE for
 *               that manifold's rows (finite: the seed's frozen levels made
 *               the support infinitely heavy and handed its motion up).
 *   store       the impulses are kept for the next step in key order.
 *
 * The positions the substeps reach are handed to integration as pseudo
 * velocities (their difference from dt times the final velocity). The collision phase
 * before this stage (the seed's, with restitution) is unchanged: it gives
 * bounces, cradles and billiards their textbook answers.
 */
import type { ConstraintSystem } from './constraints.ts';
import { DisjointSets } from '../geometry/disjointSets.ts';
import { energyAlpha } from './energyBound.ts';
import type { ContactSet } from './contacts.ts';
import { contactKey, ContactStore, STORE_IMPULSE } from './contactStore.ts';
import { growColumns, sizeColumns } from '../util/growable.ts';
import type { Material } from './impulse.ts';
import { ROW_FLOATS, rowVel, setRow } from './contactRows.ts';
import { pairCell, pairMaterial } from './material.ts';
import { quatToMat3, solveDense, tangentBasis } from './math.ts';
import * as det from '../util/detmath.ts';
import { exactOnPlane } from './shape.ts';
import { PAIR_MESH, PAIR_PLANE, type PairList } from './pairs.ts';
import type { StepContext } from './stepContext.ts';
import type { ContactPhase, ContactSolver } from './contactSolver.ts';
import { CONTACT_SOLVER_STAGES } from './profile.ts';
import { ballField, fieldAt, flatAround, meshBall, SurfaceMeet } from './fieldPoint.ts';
import { creaseAlong, faceLever, onCreaseAt } from './patches.ts';

/** Points per manifold the solver sees. */
export const MANIFOLD_POINTS = 4;
/**
 * Substeps per step. The tower of 40 one-metre cubes at 60 Hz, dropped 2 mm
 * apart: with 4 it leaned 84 mm in 10 s and fell; with 8 it drifted 17.5 mm
 * in 30 s, with 12 2.6 mm and with 16 1.9 mm (2.28, 2.74 and 2.84 ms a step).
 */
export const SUBSTEPS = 12;
/**
 * Soft contact stiffness (Hz), at most a quarter of the substep rate (60 Hz
 * at 60 steps a second and 4 substeps). At 30 Hz a tower of 20 one-metre
 * cubes buckled within 5 s (each contact is a spring of m_eff omega^2 under
 * the weight of the boxes above it); twice as stiff against a static body
 * (Box2D's choice) set a stack of five rocking at 5 cm/s on the floor.
 */
const CONTACT_HERTZ = 60;
/** Soft contact damping ratio (heavily over-damped: a push-out, not a spring). */
const DAMPING_RATIO = 10;
/** Most push-out speed (m/s) the bias may ask for. */
const MAX_PUSH = 3;
/** Tangential speed (m/s) past which a manifold whose friction met its static cone breaks loose. */
const SLIP_SPEED = 1e-4;
/**
 * A manifold whose normal impulse changed over the step's last substep by
 * more than this fraction is still taking up its load: not judged sliding
 * (slips).
 */
const LOAD_SETTLED = 0.01;
/** Depth (in the pair's SDF cells) the bias leaves alone, so a resting contact stays touching (at 0.005 a stack of five rocked at 5-10 cm/s). */
const SLOP_CELLS = 0.02;
/** A static body's normals at a moving body's samples within ~2 degrees of each other: a flat support, treated as a plane. */
const FLAT_SUPPORT_COS = 0.9994;
/**
 * A curved manifold against a plane takes its points where the surfaces
 * meet (SurfaceMeet, meetsCurved): the farthest (in cells) such a point may
 * lie from the sample it starts at.
 */
const MEET_REACH_CELLS = 2;
/**
 * Where in the step (a fraction of dt) a rolling manifold's points are
 * anchored: the point where the surfaces meet moves over the bodies as they
 * roll, and the rows push at one anchor for the whole step. Anchored where
 * the step begins, a rocking body's restoring push lags its motion (less
 * while it swings out, more while it swings back) and pumps energy in: a
 * hemisphere rocking 10 degrees on the floor at 100 Hz rocked 17.5 degrees
 * five swings later. Half a step on, the lag cancels (10.4 to 10.5 degrees).
 * (A whole step on, it leads, and drags the swing down to 6.9.)
 */
const MEET_AHEAD = 0.5;
/** Points of one manifold whose surfaces meet closer than this many cells apart are one point. */
const MEET_SAME_CELLS = 0.1;
/** The gap spread (in cells) below which three or more points lie on a face, which keeps its corners (no meeting points). */
const FLAT_CELLS = 0.05;
/** A crease tensor's reading along the direction of roll (1 straight across one crease) above which a sample on a crease is a corner the body tips over. */
const CREASE_ACROSS_ROLL = 0.25;
/**
 * Chosen points on creases the roll runs along that make a manifold roll
 * (rollsAlongCreases). With one, the bunny heaps' rolling manifolds that
 * hold a single such sample (a quarter of those not wholly on creases; 8 %
 * hold two or more) rolled as a rim does, and heaps of 30 and 50 slept 1.4
 * and 0.5 s later; with two, heaps of 25 to 60 slept 0.2 s later on average,
 * two of five earlier.
 */
const ROLL_CREASE_POINTS = 2;
/** The spread, along the roll, of the touching samples' own normals (the sine of the angle they turn through) above which a rolling manifold's surface curves that way. */
const ROLL_CURVE_SIN = 0.02;
/** Sweeps over a manifold's normal rows in each relax. */
const LOCAL_SWEEPS = 4;
/** Approach speeds below this many |g| dt are resting contacts, which the restitution pass leaves alone. */
export const RESTITUTION_STEPS = 2;
/**
 * With a collision phase, the restitution pass bounces only the approaches
 * the phase missed that are faster than this (m/s, Box2D's and Jolt's
 * restitution threshold): a slower one in a heap is mostly its bodies'
 * chatter. On the pile ensemble (scripts/contact-stages.ts --ensemble) the
 * stage's 2 |g| dt let 60 rings on 3 pegs sleep at 4.2 s instead of 3.2,
 * and 400 boxes at 11.9 s instead of 8.1; with 1 m/s, 3.2 and 7.7 s.
 */
const MISSED_IMPACT_SPEED = 1;
/**
 * Sweeps of the split impulse's push-out over every manifold per substep:
 * one let the 20 rings on a peg press the bottom ring 9 cm into the floor
 * (each pushed its support back down); four, 6 cm.
 */
const PSEUDO_ITERS = 4;
/**
 * The push-out runs in every PSEUDO_EVERY-th substep; the substeps between
 * move by the pseudo velocities it left (a rate that holds over a few
 * substeps). For comparisons at more substeps (docs/DESIGN.md 6, "More
 * substeps"): at 32 substeps, a push-out in every 4th held six loops of six
 * jointed rings within 2.9 mm (two sweeps in each of 24 let them sink 15 mm).
 */
const PSEUDO_EVERY = 1;
/**
 * The push-out freezes a supporting manifold's lower body only where it is
 * at most this many times lighter than the upper one (inverse masses). A
 * light body under a heavy load, frozen, lifted the load out of its own
 * depth at every push-out while the velocity rows (Gauss-Seidel across a
 * link of 1:30) let the load sink back: a limit cycle that fed on the lifts.
 * Six unit boxes at 60 Hz, sleep off, 10 s: 1 kg under five of 30 kg swayed
 * 96 mm, alternating 1 and 30 kg 44 mm, 1 kg under 1000 kg toppled; shared
 * by mass at such a link they stand within 0.07 mm (docs/DESIGN.md 4, "Mass
 * ratios"). Between 1 and 2 nothing changes (the pile built-in's bodies
 * differ by at most 1.85 times, box heaps and ring piles not at all).
 */
const LIGHT_SUPPORT = 2;
/**
 * The share of its own inverse mass a supporting manifold's lower body keeps
 * in the last relax, before SHOCK_SCALE: 1, or for a support more than
 * LIGHT_SUPPORT times lighter than its load (inverse masses il, iu) the
 * share that makes it as heavy as LIGHT_SUPPORT loads. Scaled by its own
 * mass only, 1 kg under 100 kg stays far lighter than its load, and the
 * relax cannot stop the load on it (docs/DESIGN.md 4, "Mass ratios").
 */
function supportShare(il: number, iu: number): number {
  return iu > 0 && il > LIGHT_SUPPORT * iu ? (LIGHT_SUPPORT * iu) / il : 1;
}
/** Normals within ~37 degrees of a cluster's mean normal join its manifold. */
const CLUSTER_COS = 0.8;
/** A stored manifold passes its angular impulses on to a new one of the pair whose normal is within ~18 degrees of its own. */
const CORE_COS = 0.95;
/** Points whose gap at the current poses is below this many cells may take part (the speculative margin beyond what the prediction found). */
const TAKE_CELLS = 0.25;
/** A manifold's points after the leader are drawn from those at most max(TAKE_CELLS cells, this share of the leader's depth) shallower than it. */
const DEEP_FRACTION = 0.5;
/** A cluster within ~60 degrees of a larger face cluster of the same pair is that face's rim (dropRim). */
const RIM_COS = 0.5;
/** A manifold whose normal lies within ~45 degrees of the vertical supports (shock propagation scales only those: a heavier lower body met sideways would hand the upper one momentum). */
const SUPPORT_COS = 0.7;
/** Most sweeps over a level in the shock relax, and the velocity change (m/s) below which a level is done. */
const SHOCK_SWEEPS = 20;
const SHOCK_TOL = 1e-9;
/** Inverse mass scale of the lower body of a pair across levels in the last relax (shock propagation). */
export const SHOCK_SCALE = 0.3;
/** Floats per stored manifold: normal (3), angular impulse (3), total normal impulse, whether it slid. */
const SM = 8;
/**
 * The same for the push-out's pseudo velocities in an island that is a column
 * (columnScales): the lower body of a supporting manifold twice as heavy,
 * never infinite. Frozen (0), a column's push-out is the sum of every push
 * below it: the top is lifted faster than its velocities sink it, the next
 * pass finds the rings below pushed back into it, and 40 or more rings on
 * one peg, or 67 on each of three, never sleep. Elsewhere the support stays
 * frozen: twice as heavy in every island, heaps of 800-1200 boxes slept
 * later and were asleep at 10 s in 3 of 7 runs against 6 (docs/DESIGN.md 4,
 * "Tall stacks").
 */
const PSEUDO_SHOCK_SCALE = 0.5;
/**
 * An island is a column when it is at least this many levels tall (frozen
 * supports hold stacks of 30 rings; heaps of 1000-1200 boxes reach 20-39
 * levels)...
 */
const COLUMN_LEVELS = 24;
/** ...and has at least this many levels per body (a stack on one peg has one, 200 rings on 3 pegs 0.33, a heap of 1000 boxes 0.02-0.04). */
const COLUMN_SHARE = 0.2;
/** A kept point's edge in the reduction: its depth counts this many cells deeper, its spans this much longer. */
const KEEP_CELLS = 0.02;
const KEEP_FACTOR = 1.05;

/** Floats per row direction (contactRows.ts). */
const DIR = ROW_FLOATS;
/** Three directions per point: normal, t1, t2. */
const JAC = 3 * DIR;
/** Floats per manifold's angular direction: axis (3), I1^-1 axis (3), I2^-1 axis (3). */
const ADIR = 9;
/** Three angular directions per manifold: spin (normal), roll t1, roll t2. */
const AJAC = 3 * ADIR;

/** The stage's tables (AccumulatedSolver's fields of the same names). */
const POINT_COLUMNS = { pa: 1, pb: 1, pm: 1, pkey: 1, jac: JAC, ka: 3, kb: 3, kinv: 3, ra: 3, rb: 3, s0: 1, slop: 1, lam: 3, vn0: 1, lamMax: 1, lamP: 1, sepNow: 1, massNow: 1 } as const;
const MANIFOLD_COLUMNS = { mStart: 1, mEnd: 1, mPair: 1, mLevel: 1, mSupport: 1, mMu: 1, mMuS: 1, mSlide: 1, mClamp: 1, mSlip0: 1, mLoad0: 1, mRest: 1, mRoll: 1, mSpin: 1, mLever: 1, ajac: AJAC, aka: 3, akb: 3, alam: 3 } as const;
const BODY_COLUMNS = { dp: 3, dq: 3, v0: 3, w0: 3, active: 1, touched: 1, activeList: 1, scale: 1, pv: 3, pw: 3, vw: 3, ww: 3, hw: 3, isl: 1, jnt: 1, lite: 1, eA: 2, pss: 1, col: 2 } as const;
const STORE_MANIFOLD_COLUMNS = { smA: 1, smB: 1, smData: SM } as const;
const CARRY_MANIFOLD_COLUMNS = { cmA: 1, cmB: 1, cmData: SM } as const;

/** Whether a pair's bodies are all asleep or static (and not both static): out of the pair list while they sleep. */
function dormantPair(isStatic: Uint8Array, asleep: Uint8Array): (a: number, b: number) => boolean {
  return (a, b) => (isStatic[a] === 1 || asleep[a] === 1) && (isStatic[b] === 1 || asleep[b] === 1) && !(isStatic[a] === 1 && isStatic[b] === 1);
}
/** Per pair: where its stored manifolds start and end (its points: ContactStore.index). */
const PAIR_COLUMNS = { pairMan: 1, pairManEnd: 1 } as const;
/** One pair's candidate points as it is reduced, and its normal clusters. */
const CANDIDATE_COLUMNS = { cand: 1, candN: 3, used: 1, members: 1, keptAt: 1 } as const;
const CLUSTER_COLUMNS = { clN: 3, clCount: 1, clFace: 1, clDrop: 1 } as const;

/** What a solve did, for tests and monitors. */
export interface AccumulatedStats {
  /** Contact points the narrow phase listed for the solved pairs. */
  candidates: number;
  /** Points the solver kept (rows = 3 per point). */
  points: number;
  /** Manifolds (clusters). */
  manifolds: number;
  /** Points that found last step's impulses. */
  warmPoints: number;
}

export class AccumulatedSolver implements ContactSolver {
  readonly stages = CONTACT_SOLVER_STAGES.accumulated;
  readonly stats: AccumulatedStats = { candidates: 0, points: 0, manifolds: 0, warmPoints: 0 };
  /** Substeps per step (tests may change it). */
  substeps = SUBSTEPS;
  /** Push-out sweeps per substep (tests and scripts may change it). */
  pseudoIters = PSEUDO_ITERS;
  /** The push-out runs in every this many substeps (tests and scripts may change it). */
  pseudoEvery = PSEUDO_EVERY;
  /** Sweeps over a manifold's normal rows in each relax and push-out sweep (tests and scripts may change it). */
  localSweeps = LOCAL_SWEEPS;
  /** Most sweeps over a level in the shock relax (tests and scripts may change it). */
  shockSweeps = SHOCK_SWEEPS;
  /** The push-out's inverse mass scale of a supporting manifold's lower body in a column (tests and scripts may change it). */
  pseudoShockScale = PSEUDO_SHOCK_SCALE;
  /** The levels and levels per body that make an island a column (tests and scripts may change them). */
  columnLevels = COLUMN_LEVELS;
  columnShare = COLUMN_SHARE;
  /** Shock propagation in the last relax (off only for comparison). */
  shock = true;
  /**
   * Push-out by split impulse (pseudo velocities that move the substep's
   * positions and are dropped), the default; false: Box2D's soft contact
   * bias in the velocities, kept for comparison (ALGORITHM.md 4.6 has both
   * measured).
   */
  splitImpulse = true;
  /**
   * The restitution pass after the substeps (on unless a caller turns it
   * off). It bounces the manifolds of pairs the seed's collision phase did
   * not bounce this step (PairList.impactStep): with no collision phase
   * (`collisionIterations` 0), every impact; with one, the approaches its
   * predictions missed, which come within the contact band without
   * penetrating (a ball of restitution 1 that met the floor so came back
   * to 0.17 of its height at 60 Hz).
   */
  restitution = true;
  /**
   * From a step's second substep on, each island's warm start scaled so that
   * it adds no kinetic energy (warmStart; ALGORITHM.md 4.6). Off by default:
   * it holds a shot into a stack to a tenth of the energy it gains, but a
   * tall ring stack on one peg chatters under it.
   */
  warmEnergy = false;
  /** Whether the collision phase bounced the pair being reduced this step (its manifolds take no restitution here). */
  private bounced = false;

  // The columns of the tables below (points, manifolds, bodies, the store,
  // candidates, clusters; the *_COLUMNS layouts) are the stage's own: they
  // are not private only so the column helpers (growable.ts) reach them.

  // ---- points of this step ----
  private cap = 0;
  private count = 0;
  pa = new Int32Array(0);
  pb = new Int32Array(0);
  pm = new Int32Array(0);
  /** Key within the pair: side * 2^24 + sample... kept as a float (side, sample). */
  pkey = new Float64Array(0);
  jac = new Float64Array(0);
  /** Per direction (3 per point): body a's and body b's parts of d^T K d. */
  ka = new Float64Array(0);
  kb = new Float64Array(0);
  /** Per direction: its effective mass at unit scales, 1 / (ka + kb) (0 when that is 0). */
  kinv = new Float64Array(0);
  /** Anchors (world offsets from the current centres) of a and b. */
  ra = new Float64Array(0);
  rb = new Float64Array(0);
  s0 = new Float64Array(0);
  slop = new Float64Array(0);
  lam = new Float64Array(0);
  /** Each point's relative normal velocity before the stage, and the largest normal impulse it carried (the restitution pass). */
  vn0 = new Float64Array(0);
  lamMax = new Float64Array(0);

  // ---- manifolds ----
  private mcap = 0;
  private mcount = 0;
  mStart = new Int32Array(0);
  mEnd = new Int32Array(0);
  mPair = new Int32Array(0);
  /** The pair's contact-graph level, and whether the manifold supports one body against gravity (normal within ~45 degrees of up). */
  mLevel = new Int32Array(0);
  mSupport = new Uint8Array(0);
  private curLevel = 0;
  mMu = new Float64Array(0);
  /** Static friction (mu_s >= mMu, the dynamic one); whether the manifold slides (mu_d) or sticks (mu_s), and whether its last friction rows met their cone. */
  mMuS = new Float64Array(0);
  mSlide = new Uint8Array(0);
  /** Manifold m's largest slip speed at its points at the start of the step's last substep (m/s; slips). */
  mSlip0 = new Float64Array(0);
  /** Manifold m's normal impulse (summed over its points) at the start of the step's last substep (slips). */
  mLoad0 = new Float64Array(0);
  /** |g| dt of the step: a slip above it is not the creep a new contact's first steps leave (store). */
  private slipScale = 0;
  mClamp = new Uint8Array(0);
  mRest = new Float64Array(0);
  mRoll = new Float64Array(0);
  mSpin = new Float64Array(0);
  /**
   * A face's spin lever against a static body (faceSpinRadius: the mean
   * distance of the mesh faces it presses from their centre), 0 for the
   * rest: its points' friction rows then hold no spin, and one row about
   * the normal holds it up to mu r_s times the manifold's normal impulse.
   */
  mLever = new Float64Array(0);
  /** addManifold's scratch: the face centre faceLever found. */
  private readonly faceCentre = new Float64Array(3);
  ajac = new Float64Array(0);
  aka = new Float64Array(0);
  akb = new Float64Array(0);
  alam = new Float64Array(0);

  // ---- per body ----
  dp = new Float64Array(0);
  dq = new Float64Array(0);
  v0 = new Float64Array(0);
  w0 = new Float64Array(0);
  active = new Uint8Array(0);
  touched = new Uint8Array(0);
  activeList = new Int32Array(0);
  private activeCount = 0;
  scale = new Float64Array(0);
  /** The warm start's energy bound (warmStart): the velocities before it, the angular impulse it gives, each body's island root, per root its L and Q (then alpha). */
  vw = new Float64Array(0);
  ww = new Float64Array(0);
  hw = new Float64Array(0);
  isl = new Int32Array(0);
  /** Whether a joint holds the body (then, at an island root, the island). */
  jnt = new Uint8Array(0);
  /** Per island root: the island holds a light support (lightSupports). */
  lite = new Uint8Array(0);
  /** Whether any island of this step holds one. */
  private anyLight = false;
  /** The last relax's impulses of light supports' rows, restored after it (shockRelax). */
  private keptLam = new Float64Array(0);
  /** Each body's push-out support scale this step (columnScales), and per island root its bodies and levels. */
  pss = new Float64Array(0);
  col = new Float64Array(0);
  /** The islands as they are joined (islandRoots), over the body indices. */
  private sets = new DisjointSets(0);
  eA = new Float64Array(0);

  // ---- the store: last step's points (contactStore.ts) and manifolds, in key order ----
  private readonly points = new ContactStore();
  private smCount = 0;
  smA = new Int32Array(0);
  smB = new Int32Array(0);
  /** Manifold normal (3) and angular impulse as a world vector (3). */
  smData = new Float64Array(0);
  private storeBodies = -1;
  /**
   * The entries of dormant pairs (both bodies asleep or static) set aside
   * while the store is rewritten (carryDormant): such a pair leaves the pair
   * list while its island sleeps, and its island must wake with its
   * impulses, not cold.
   */
  private readonly carry = new ContactStore();
  private carrySm = 0;
  cmA = new Int32Array(0);
  cmB = new Int32Array(0);
  cmData = new Float64Array(0);

  // ---- scratch ----
  cand = new Int32Array(64);
  candN = new Float64Array(192);
  used = new Uint8Array(64);
  members = new Int32Array(64);
  /** Per point of the pair being reduced (its index less keptBase): 1 if it was in the pair's manifolds last step. */
  keptAt = new Uint8Array(64);
  private keptBase = 0;
  private chosen = new Int32Array(MANIFOLD_POINTS);
  private isNew = new Uint8Array(MANIFOLD_POINTS);
  private readonly basis = new Float64Array(6);
  private readonly fit = new Float64Array(3);
  private readonly pointBasis = new Float64Array(6);
  private readonly mat: Material = { restitution: 0, friction: 0, staticFriction: 0, rolling: 0, spinning: 0 };

  /** The unit normal (pushing the pair's first body away from its second) of manifold m of the last solve. */
  manifoldNormal(m: number): [number, number, number] {
    const o = AJAC * m;
    return [this.ajac[o]!, this.ajac[o + 1]!, this.ajac[o + 2]!];
  }

  /** Forgets the store (bodies added or removed, a restored state). */
  reset(): void {
    this.points.reset();
    this.smCount = 0;
  }

  /**
   * The stage's setup for the step (stage contactPrepare): the manifolds
   * reduced from the pairs' points (visited in `pairs.order`, by
   * contact-graph level), their anchors, normals and effective masses, and
   * last step's impulses matched to them from the store. A pair the
   * collision phase bounced this step gets no restitution here.
   */
  prepare(phase: ContactPhase): void {
    const ctx = phase.ctx;
    const n = ctx.bodies.count;
    if (this.storeBodies !== n) {
      this.reset();
      this.storeBodies = n;
    }
    this.sizeBodies(n);
    touchedNow = this.touched;
    this.velRef = ctx.bodies.vel;
    this.angRef = ctx.bodies.angVel;
    this.build(ctx, phase.contacts.cur, phase.pairs);
    // Each row's effective mass at unit scales, once: the passes' rows use
    // it unless shock propagation scales a body (the same value they would
    // compute, 1 / (ka + kb)).
    const ka = this.ka, kb = this.kb, kinv = this.kinv;
    for (let r = 0, e = 3 * this.count; r < e; r++) kinv[r] = effMass(ka[r]!, kb[r]!, 1, 1);
    const st = this.stats;
    st.points = this.count;
    st.manifolds = this.mcount;
    phase.profile.end('contactPrepare');
  }

  /**
   * The substeps (stage contactSolve): per substep a warm start, the
   * velocity rows, the push-out, the relax (shock propagation in the last),
   * the joints' velocity pass before the rows and before the relax; then
   * the restitution pass. Velocities change in place (ctx.bodies.vel /
   * angVel); the substeps' motion is left in ctx.pseudoVel / pseudoAngVel
   * for integration.
   */
  async solve(phase: ContactPhase): Promise<void> {
    if (this.count > 0) this.substepAll(phase.ctx, phase.constraints ?? null);
    phase.profile.end('contactSolve');
  }

  /**
   * The stage's depths for sleeping and the store kept for the next step
   * (stage contactStore); then one position pass for the joints (stage
   * joints), as with PGS.
   */
  finish(phase: ContactPhase): void {
    const ctx = phase.ctx;
    this.measureDepths(phase.pairs.count);
    if (this.count > 0) this.keepPositions(ctx);
    if (this.mcount === 0) this.keepDormant(ctx.bodies.isStatic, ctx.bodies.asleep);
    else {
      this.carryDormant(ctx.bodies.isStatic, ctx.bodies.asleep);
      this.store();
    }
    phase.profile.end('contactStore');
    if (phase.constraints) {
      phase.constraints.positionStabilize(ctx, -1);
      phase.profile.end('joints');
    }
  }

  /** Nothing after integration: the substeps' motion was integrated with the velocities. */
  integrated(): void {}

  private substepAll(ctx: StepContext, joints: ConstraintSystem | null = null): void {
    touchedNow = this.touched;
    const B = ctx.bodies;
    const count = this.count;
    const dt = ctx.dt;
    const nsub = Math.max(1, this.substeps | 0);
    const h = dt / nsub;
    const every = Math.max(1, this.pseudoEvery | 0);
    const g = ctx.gravity;
    const v = B.vel, w = B.angVel;
    const act = this.activeList, na = this.activeCount;
    if (this.restitution) {
      for (let r = 0; r < count; r++) {
        this.vn0[r] = rowVel(this.jac, JAC * r, v, w, this.pa[r]!, this.pb[r]!);
        this.lamMax[r] = this.lam[3 * r]!;
      }
    }
    // Gravity and the external forces (forces.ts) are integrated per substep
    // for the bodies the stage moves: the velocity update gave them dt (g + a)
    // and dt alpha already.
    const ea = ctx.extAcc, eal = ctx.extAngAcc;
    for (let k = 0; k < na; k++) {
      const i = act[k]!;
      this.v0[3 * i] = v[3 * i]!; this.v0[3 * i + 1] = v[3 * i + 1]!; this.v0[3 * i + 2] = v[3 * i + 2]!;
      this.w0[3 * i] = w[3 * i]!; this.w0[3 * i + 1] = w[3 * i + 1]!; this.w0[3 * i + 2] = w[3 * i + 2]!;
      v[3 * i] -= dt * (g[0] + ea[3 * i]!); v[3 * i + 1] -= dt * (g[1] + ea[3 * i + 1]!); v[3 * i + 2] -= dt * (g[2] + ea[3 * i + 2]!);
      w[3 * i] -= dt * eal[3 * i]!; w[3 * i + 1] -= dt * eal[3 * i + 1]!; w[3 * i + 2] -= dt * eal[3 * i + 2]!;
      this.dp[3 * i] = 0; this.dp[3 * i + 1] = 0; this.dp[3 * i + 2] = 0;
      this.dq[3 * i] = 0; this.dq[3 * i + 1] = 0; this.dq[3 * i + 2] = 0;
      this.scale[i] = 1;
    }
    this.slipScale = Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * dt;
    if (this.warmEnergy) this.islandRoots(ctx, joints);
    const shockLevel = this.shock && ctx.settings.shockPropagation && ctx.settings.contactGraph ? ctx.level : null;
    if (shockLevel) this.columnScales(ctx, joints, shockLevel);
    this.anyLight = this.lightSupports(ctx, joints, shockLevel);
    // Softness (Box2D's b2MakeSoft): bias rate, mass scale, impulse scale.
    const hz = Math.min(CONTACT_HERTZ, 0.25 / h);
    const soft = softness(hz, DAMPING_RATIO, h);
    for (let s = 0; s < nsub; s++) {
      // Each manifold's slip at the last substep's start, against which
      // store() judges its end: by then the substeps have built the normal
      // impulses up to the load, and the static cone either slows the slip
      // over this one or cannot.
      // (Only where the cone can change: with mu_s = mu_d the slide flag changes nothing.)
      if (s === nsub - 1) {
        for (let m = 0; m < this.mcount; m++) {
          if (!(this.mMuS[m]! > this.mMu[m]!)) continue;
          this.mSlip0[m] = this.slip(m);
          this.mLoad0[m] = this.load(m);
        }
      }
      for (let k = 0; k < na; k++) {
        const i = act[k]!;
        v[3 * i] += h * (g[0] + ea[3 * i]!); v[3 * i + 1] += h * (g[1] + ea[3 * i + 1]!); v[3 * i + 2] += h * (g[2] + ea[3 * i + 2]!);
        w[3 * i] += h * eal[3 * i]!; w[3 * i + 1] += h * eal[3 * i + 1]!; w[3 * i + 2] += h * eal[3 * i + 2]!;
      }
      // (Bounded from the second substep on: see warmStart.)
      this.warmStart(v, w, s > 0);
      if (joints) joints.velocityStabilize(ctx);
      if (this.splitImpulse) {
        // Split impulse: the velocity rows rigid, the push-out on pseudo
        // velocities that move this substep's positions and are dropped.
        // (After the first substep, the last relax left every row's
        // separation and mass as this solve would find them: the positions
        // have not moved since.)
        this.pass(v, w, h, false, soft, 0, this.mcount, null, s === 0);
        if (s % every === 0) this.pseudoPass(soft, shockLevel);
        const pv = this.pv, pw = this.pw;
        for (let k = 0; k < na; k++) {
          const i = act[k]!;
          for (let c = 0; c < 3; c++) {
            this.dp[3 * i + c] += h * (v[3 * i + c]! + pv[3 * i + c]!);
            this.dq[3 * i + c] += h * (w[3 * i + c]! + pw[3 * i + c]!);
          }
        }
      } else {
      this.pass(v, w, h, true, soft);
      for (let k = 0; k < na; k++) {
        const i = act[k]!;
        this.dp[3 * i] += h * v[3 * i]!; this.dp[3 * i + 1] += h * v[3 * i + 1]!; this.dp[3 * i + 2] += h * v[3 * i + 2]!;
        this.dq[3 * i] += h * w[3 * i]!; this.dq[3 * i + 1] += h * w[3 * i + 1]!; this.dq[3 * i + 2] += h * w[3 * i + 2]!;
      }
      }
      const last = s === nsub - 1;
      if (joints) joints.velocityStabilize(ctx);
      if (last && this.shock && ctx.settings.shockPropagation && ctx.settings.contactGraph) this.shockRelax(ctx, v, w, h, soft);
      else this.pass(v, w, h, false, soft);
    }
    if (this.restitution) this.restitutionPass(ctx, v, w);
  }

  private keepPositions(ctx: StepContext): void {
    const B = ctx.bodies;
    const dt = ctx.dt;
    const v = B.vel, w = B.angVel;
    const act = this.activeList, na = this.activeCount;
    // Positions: what the substeps moved, as pseudo velocities beside the
    // final velocities; a body no impulse reached keeps its velocity exactly
    // (and integration its free-flight parabola).
    const pv = ctx.pseudoVel, pw = ctx.pseudoAngVel;
    for (let k = 0; k < na; k++) {
      const i = act[k]!;
      if (!this.touched[i]) {
        for (let c = 0; c < 3; c++) { v[3 * i + c] = this.v0[3 * i + c]!; w[3 * i + c] = this.w0[3 * i + c]!; }
        continue;
      }
      for (let c = 0; c < 3; c++) {
        pv[3 * i + c] += this.dp[3 * i + c]! / dt - v[3 * i + c]!;
        pw[3 * i + c] += this.dq[3 * i + c]! / dt - w[3 * i + c]!;
      }
      ctx.markMoved(i);
    }
  }

  /**
   * Per pair of the last solve (PairList index): its deepest manifold
   * point's separation where the substeps left it (m, < 0 inside), +Infinity
   * for a pair the stage saw no point of. Sleeping reads it (Islands): a
   * face's rim samples read deeper than the face lies, and only the fitted
   * manifold says whether the pair is still crossed.
   */
  pairDepth = new Float64Array(0);
  /** Its substeps move the bodies (x += (dt / SUBSTEPS) v, a t dt / 24 ahead of a smooth path). */
  readonly trapezoidSpeed = null;
  /** (Sleeping reads pairDepth instead.) */
  restingSlop(): number {
    return 0;
  }

  private measureDepths(np: number): void {
    if (this.pairDepth.length < np) this.pairDepth = new Float64Array(2 * np + 16);
    this.pairDepth.fill(Infinity, 0, np);
    const jac = this.jac, ra = this.ra, rb = this.rb, dp = this.dp, dq = this.dq, pa = this.pa, pb = this.pb, act = this.active;
    for (let m = 0; m < this.mcount; m++) {
      const k = this.mPair[m]!;
      for (let r = this.mStart[m]!; r < this.mEnd[m]!; r++) {
        const a = pa[r]!, b = pb[r]!, base = JAC * r;
        let dx = 0, dy = 0, dz = 0;
        if (act[a]) {
          dx += dp[3 * a]! + dq[3 * a + 1]! * ra[3 * r + 2]! - dq[3 * a + 2]! * ra[3 * r + 1]!;
          dy += dp[3 * a + 1]! + dq[3 * a + 2]! * ra[3 * r]! - dq[3 * a]! * ra[3 * r + 2]!;
          dz += dp[3 * a + 2]! + dq[3 * a]! * ra[3 * r + 1]! - dq[3 * a + 1]! * ra[3 * r]!;
        }
        if (act[b]) {
          dx -= dp[3 * b]! + dq[3 * b + 1]! * rb[3 * r + 2]! - dq[3 * b + 2]! * rb[3 * r + 1]!;
          dy -= dp[3 * b + 1]! + dq[3 * b + 2]! * rb[3 * r]! - dq[3 * b]! * rb[3 * r + 2]!;
          dz -= dp[3 * b + 2]! + dq[3 * b]! * rb[3 * r + 1]! - dq[3 * b + 1]! * rb[3 * r]!;
        }
        const sep = this.s0[r]! + jac[base]! * dx + jac[base + 1]! * dy + jac[base + 2]! * dz;
        if (sep < this.pairDepth[k]!) this.pairDepth[k] = sep;
      }
    }
  }

  /** The relative motion (a's anchor less b's) of point r's anchors since the step's start, into mot. */
  private relMotion(r: number, a: number, b: number): void {
    const ra = this.ra, rb = this.rb, dp = this.dp, dq = this.dq, o = this.mot;
    o[0] = dp[3 * a]! + dq[3 * a + 1]! * ra[3 * r + 2]! - dq[3 * a + 2]! * ra[3 * r + 1]! - (dp[3 * b]! + dq[3 * b + 1]! * rb[3 * r + 2]! - dq[3 * b + 2]! * rb[3 * r + 1]!);
    o[1] = dp[3 * a + 1]! + dq[3 * a + 2]! * ra[3 * r]! - dq[3 * a]! * ra[3 * r + 2]! - (dp[3 * b + 1]! + dq[3 * b + 2]! * rb[3 * r]! - dq[3 * b]! * rb[3 * r + 2]!);
    o[2] = dp[3 * a + 2]! + dq[3 * a]! * ra[3 * r + 1]! - dq[3 * a + 1]! * ra[3 * r]! - (dp[3 * b + 2]! + dq[3 * b]! * rb[3 * r + 1]! - dq[3 * b + 1]! * rb[3 * r]!);
  }
  private readonly mot = new Float64Array(3);
  private readonly meet = new SurfaceMeet();
  private readonly shift = new Float64Array(3);
  /** Split impulse: pseudo velocities per body (linear, angular) and each row's pseudo impulse in the substep. */
  pv = new Float64Array(0);
  pw = new Float64Array(0);
  lamP = new Float64Array(0);
  /**
   * Scratch of a pass: each normal row's separation (in the push-out, its
   * separation plus the slop) and effective mass, which hold while a pass
   * sweeps a manifold's rows (the substep's motion and the mass scales do not
   * change within it), computed once per row and pass.
   */
  sepNow = new Float64Array(0);
  massNow = new Float64Array(0);

  // ------------------------------------------------------------ passes

  /**
   * The push-out's support scale of each active body as a lower body
   * (pseudoPass): pseudoShockScale in an island that is a column, at least
   * columnLevels levels tall and with at least columnShare of a level per
   * body, and frozen (0) in any other.
   */
  private columnScales(ctx: StepContext, joints: ConstraintSystem | null, level: Int32Array): void {
    if (!this.warmEnergy) this.islandRoots(ctx, joints);
    const act = this.activeList, na = this.activeCount, par = this.isl, col = this.col, pss = this.pss;
    for (let k = 0; k < na; k++) { const r = par[act[k]!]!; col[2 * r] = 0; col[2 * r + 1] = 0; }
    for (let k = 0; k < na; k++) {
      const i = act[k]!, r = par[i]!;
      col[2 * r]++;
      col[2 * r + 1] = Math.max(col[2 * r + 1]!, level[i]! + 1);
    }
    for (let k = 0; k < na; k++) {
      const i = act[k]!, r = par[i]!, levels = col[2 * r + 1]!;
      pss[i] = levels >= this.columnLevels && levels >= this.columnShare * col[2 * r]! ? this.pseudoShockScale : 0;
    }
  }

  /**
   * Marks (lite, per island root) the islands that hold a light support: a
   * supporting manifold whose lower body (by level; without levels, either
   * body) is more than LIGHT_SUPPORT times lighter than the other, both
   * movable. Their warm start is bounded by energy (warmStart) whatever
   * warmEnergy says: across such a link the rows converge slowly, and an
   * impact's impulses, stored on the light body's support and applied again
   * in the next step, threw 100 kg that had landed at 4.3 m/s on a 1 kg box
   * (restitution 0) back up at 3.3 m/s. Returns whether any island holds one.
   */
  private lightSupports(ctx: StepContext, joints: ConstraintSystem | null, level: Int32Array | null): boolean {
    let any = false;
    for (let m = 0; m < this.mcount && !any; m++) any = this.isLightSupport(m, level);
    if (!any) return false;
    if (!level && !this.warmEnergy) this.islandRoots(ctx, joints);
    const par = this.isl, lite = this.lite, act = this.activeList;
    for (let k = 0; k < this.activeCount; k++) lite[act[k]!] = 0;
    for (let m = 0; m < this.mcount; m++) if (this.isLightSupport(m, level)) lite[par[this.pa[this.mStart[m]!]!]!] = 1;
    return true;
  }

  /** Whether manifold m supports a body on one more than LIGHT_SUPPORT times lighter, both movable (lightSupports). */
  private isLightSupport(m: number, level: Int32Array | null): boolean {
    if (!this.mSupport[m]) return false;
    const a = this.pa[this.mStart[m]!]!, b = this.pb[this.mStart[m]!]!;
    const ia = this.im[a]!, ib = this.im[b]!;
    if (ia === 0 || ib === 0) return false;
    const aLower = level ? level[a]! < level[b]! : true, bLower = level ? level[b]! < level[a]! : true;
    return (aLower && ia > LIGHT_SUPPORT * ib) || (bLower && ib > LIGHT_SUPPORT * ia);
  }

  /**
   * The islands of this step's manifolds (bodies joined by a manifold, the
   * immovable ones joining nothing), as each active body's root in isl.
   */
  private islandRoots(ctx: StepContext, joints: ConstraintSystem | null): void {
    const par = this.isl, act = this.activeList, im = this.im, pa = this.pa, pb = this.pb, jnt = this.jnt, active = this.active, sets = this.sets;
    for (let k = 0; k < this.activeCount; k++) { sets.reset(act[k]!); jnt[act[k]!] = 0; }
    for (let m = 0; m < this.mcount; m++) {
      const a = pa[this.mStart[m]!]!, b = pb[this.mStart[m]!]!;
      if (im[a]! > 0 && im[b]! > 0) sets.union(a, b);
    }
    // A joint carries load the contacts' warm start does not see (a chain
    // hung over a peg rests on it with the weight its links pull down): its
    // bodies' islands are joined and marked, and their warm start applied whole.
    if (joints) {
      joints.graphEdges(ctx, (u, v) => {
        const au = active[u] === 1, av = active[v] === 1;
        if (au) jnt[u] = 1;
        if (av) jnt[v] = 1;
        if (au && av) sets.union(u, v);
      });
    }
    for (let k = 0; k < this.activeCount; k++) par[act[k]!] = sets.find(act[k]!);
    for (let k = 0; k < this.activeCount; k++) if (jnt[act[k]!]) jnt[par[act[k]!]!] = 1;
  }

  /**
   * The warm start, cut where it would add kinetic energy. Per island, with
   * v the velocities before it and dv what it changes, the energy it adds is
   * f(alpha) = alpha L + alpha^2 Q / 2 when scaled by alpha, where L is the
   * sum over its rows of lambda J v and Q that of lambda J dv. A converged
   * solution has no row with lambda J v > 0 (complementarity: lambda = 0 or
   * J v = 0 at a normal row; friction at its cone opposes the slip), so a
   * warm start from one adds none: at rest dv = -v and f(1) = -Q / 2. A
   * stored impulse larger than the motion now asks for does add energy: an
   * impact stopped in the last substep (a gap that closed in it, a column
   * still being stopped). Such an island's warm start, and its accumulated
   * impulses with it, are scaled by the largest alpha that leaves
   * f(alpha) <= 0, -2 L / Q (0 when L >= 0); every other island's is
   * applied whole, and so is that of an island a joint holds (islandRoots).
   * From a warm start that adds nothing, the relax's
   * projections add nothing either (restitution 0).
   *
   * `bound` is false at a step's first substep: there the manifolds are
   * new, last step's impulses matched onto points reduced afresh, and what
   * f measures is that matching (a rocking ring's support moving to new
   * points), not an impact. Cut there, ring piles slept a second or more
   * later (60 rings on 3 pegs at 4.5 s instead of 3.2); left alone, the
   * landing column's impulses are cut at the next substep all the same.
   */
  private warmStart(v: Float64Array, w: Float64Array, bound: boolean): void {
    if (!(this.warmEnergy || this.anyLight) || !bound) {
      this.applyWarm(v, w, null);
      return;
    }
    const act = this.activeList, na = this.activeCount, par = this.isl, E = this.eA, im = this.im;
    const vw = this.vw, ww = this.ww, hw = this.hw;
    for (let k = 0; k < na; k++) {
      const i = act[k]!, o = 3 * i;
      vw[o] = v[o]!; vw[o + 1] = v[o + 1]!; vw[o + 2] = v[o + 2]!;
      ww[o] = w[o]!; ww[o + 1] = w[o + 1]!; ww[o + 2] = w[o + 2]!;
      hw[o] = 0; hw[o + 1] = 0; hw[o + 2] = 0;
      E[2 * i] = 0; E[2 * i + 1] = 0;
    }
    this.applyWarm(v, w, hw);
    // Per body, with dv, dw its change and H = I dw its angular impulse:
    // L += m v . dv + w . H and Q += m dv . dv + dw . H (v, w before it).
    for (let k = 0; k < na; k++) {
      const i = act[k]!, o = 3 * i, m = 1 / im[i]!;
      const dx = v[o]! - vw[o]!, dy = v[o + 1]! - vw[o + 1]!, dz = v[o + 2]! - vw[o + 2]!;
      const hx = hw[o]!, hy = hw[o + 1]!, hz = hw[o + 2]!;
      const r = 2 * par[i]!;
      E[r] += m * (vw[o]! * dx + vw[o + 1]! * dy + vw[o + 2]! * dz) + ww[o]! * hx + ww[o + 1]! * hy + ww[o + 2]! * hz;
      E[r + 1] += m * (dx * dx + dy * dy + dz * dz) + (w[o]! - ww[o]!) * hx + (w[o + 1]! - ww[o + 1]!) * hy + (w[o + 2]! - ww[o + 2]!) * hz;
    }
    // Per island root, E[2 i + 1] becomes its alpha.
    let cut = false;
    for (let k = 0; k < na; k++) {
      const i = act[k]!;
      if (par[i] !== i) continue;
      const L = E[2 * i]!, Q = E[2 * i + 1]!;
      const alpha = this.jnt[i] || !(this.warmEnergy || this.lite[i]) ? 1 : energyAlpha(L, Q, 0);
      E[2 * i + 1] = alpha;
      if (alpha < 1) cut = true;
    }
    if (!cut) return;
    for (let k = 0; k < na; k++) {
      const i = act[k]!, alpha = E[2 * par[i]! + 1]!;
      if (alpha === 1) continue;
      for (let c = 0; c < 3; c++) {
        v[3 * i + c] = vw[3 * i + c]! + alpha * (v[3 * i + c]! - vw[3 * i + c]!);
        w[3 * i + c] = ww[3 * i + c]! + alpha * (w[3 * i + c]! - ww[3 * i + c]!);
      }
    }
    const pa = this.pa, pb = this.pb, lam = this.lam, al = this.alam;
    for (let m = 0; m < this.mcount; m++) {
      const r0 = this.mStart[m]!, a = pa[r0]!;
      const alpha = E[2 * par[im[a]! > 0 ? a : pb[r0]!]! + 1]!;
      if (alpha === 1) continue;
      for (let r = r0, e = this.mEnd[m]!; r < e; r++) { lam[3 * r] *= alpha; lam[3 * r + 1] *= alpha; lam[3 * r + 2] *= alpha; }
      al[3 * m] *= alpha; al[3 * m + 1] *= alpha; al[3 * m + 2] *= alpha;
    }
  }

  /** Applies every point's and manifold's accumulated impulse; with hw, adds each movable body's angular impulse (I dw) to it. */
  private applyWarm(v: Float64Array, w: Float64Array, hw: Float64Array | null): void {
    const jac = this.jac, lam = this.lam, pa = this.pa, pb = this.pb, sc = this.scale, im = this.im;
    // Manifold by manifold (their rows are consecutive, in row order), the
    // two bodies' velocities in locals as in pass().
    for (let m = 0; m < this.mcount; m++) {
      const r0 = this.mStart[m]!, r1 = this.mEnd[m]!;
      const a = pa[r0]!, b = pb[r0]!, a3 = 3 * a, b3 = 3 * b;
      const ima = im[a]!, imb = im[b]!, sa = sc[a]!, sb = sc[b]!;
      let vax = v[a3]!, vay = v[a3 + 1]!, vaz = v[a3 + 2]!;
      let vbx = v[b3]!, vby = v[b3 + 1]!, vbz = v[b3 + 2]!;
      let wax = w[a3]!, way = w[a3 + 1]!, waz = w[a3 + 2]!;
      let wbx = w[b3]!, wby = w[b3 + 1]!, wbz = w[b3 + 2]!;
      let hit = false;
      let hax = 0, hay = 0, haz = 0, hbx = 0, hby = 0, hbz = 0;
      for (let r = r0; r < r1; r++) {
        for (let k = 0; k < 3; k++) {
          const d = lam[3 * r + k]!;
          if (d === 0) continue;
          const o = JAC * r + k * DIR;
          const ia = ima * d * sa, ib = imb * d * sb, la = d * sa, lb = d * sb;
          vax += ia * jac[o]!; vay += ia * jac[o + 1]!; vaz += ia * jac[o + 2]!;
          vbx -= ib * jac[o]!; vby -= ib * jac[o + 1]!; vbz -= ib * jac[o + 2]!;
          wax += la * jac[o + 9]!; way += la * jac[o + 10]!; waz += la * jac[o + 11]!;
          wbx -= lb * jac[o + 12]!; wby -= lb * jac[o + 13]!; wbz -= lb * jac[o + 14]!;
          if (hw) {
            hax += la * jac[o + 3]!; hay += la * jac[o + 4]!; haz += la * jac[o + 5]!;
            hbx -= lb * jac[o + 6]!; hby -= lb * jac[o + 7]!; hbz -= lb * jac[o + 8]!;
          }
          hit = true;
        }
      }
      if (hw && hit) {
        if (ima > 0) { hw[a3] += hax; hw[a3 + 1] += hay; hw[a3 + 2] += haz; }
        if (imb > 0) { hw[b3] += hbx; hw[b3 + 1] += hby; hw[b3 + 2] += hbz; }
      }
      if (hit) {
        v[a3] = vax; v[a3 + 1] = vay; v[a3 + 2] = vaz;
        v[b3] = vbx; v[b3 + 1] = vby; v[b3 + 2] = vbz;
        w[a3] = wax; w[a3 + 1] = way; w[a3 + 2] = waz;
        w[b3] = wbx; w[b3 + 1] = wby; w[b3 + 2] = wbz;
        touchedNow[a] = 1;
        touchedNow[b] = 1;
      }
    }
    const aj = this.ajac, al = this.alam;
    for (let m = 0; m < this.mcount; m++) {
      const r0 = this.mStart[m]!;
      const a = pa[r0]!, b = pb[r0]!;
      for (let d = 0; d < 3; d++) {
        const l = al[3 * m + d]!;
        if (l === 0) continue;
        const o = AJAC * m + ADIR * d;
        IMPULSE[0] = l;
        applyAngular(aj, o, w, sc, a, b);
        if (hw) {
          const la = l * sc[a]!, lb = l * sc[b]!;
          if (im[a]! > 0) { hw[3 * a] += la * aj[o]!; hw[3 * a + 1] += la * aj[o + 1]!; hw[3 * a + 2] += la * aj[o + 2]!; }
          if (im[b]! > 0) { hw[3 * b] -= lb * aj[o]!; hw[3 * b + 1] -= lb * aj[o + 1]!; hw[3 * b + 2] -= lb * aj[o + 2]!; }
        }
      }
    }
  }

  /**
   * One sweep over the manifolds: per manifold friction rows, rolling and
   * spinning, then the normal rows. `bias`: the soft biased solve; without,
   * the relax (rigid rows, no push-out; a gap still closes speculatively).
   */
  private pass(v: Float64Array, w: Float64Array, h: number, bias: boolean, so: Soft, mFrom = 0, mTo = this.mcount, shockLevel: Int32Array | null = null, fresh = true): number {
    const jac = this.jac, lam = this.lam, pa = this.pa, pb = this.pb, sc = this.scale, im = this.im;
    const ka = this.ka, kb = this.kb, kinv = this.kinv, ra = this.ra, rb = this.rb, s0 = this.s0, dp = this.dp, dq = this.dq;
    const aj = this.ajac, aka = this.aka, akb = this.akb, al = this.alam;
    const sepNow = this.sepNow, massNow = this.massNow, slop = this.slop, lamMax = this.lamMax;
    const invH = 1 / h;
    let change = 0;
    for (let m = mFrom; m < mTo; m++) {
      const r0 = this.mStart[m]!, r1 = this.mEnd[m]!;
      const a = pa[r0]!, b = pb[r0]!;
      if (shockLevel) {
        // Shock propagation: the lower body of a supporting manifold is
        // heavier by 1 / SHOCK_SCALE for this manifold's rows (a light
        // support: than its load; supportShare).
        sc[a] = 1; sc[b] = 1;
        if (this.mSupport[m]) {
          const la = shockLevel[a]!, lb = shockLevel[b]!;
          if (la < lb) sc[a] = SHOCK_SCALE * supportShare(im[a]!, im[b]!);
          else if (lb < la) sc[b] = SHOCK_SCALE * supportShare(im[b]!, im[a]!);
        }
      }
      const sa = sc[a]!, sb = sc[b]!;
      const unit = sa === 1 && sb === 1;
      const ima = im[a]!, imb = im[b]!;
      const a3 = 3 * a, b3 = 3 * b;
      // The two bodies' velocities, held in locals for the manifold's rows
      // (every row of a manifold joins the same two bodies) and written back
      // at its end: the same arithmetic as contactRows.ts rowVel and
      // applyScaled, in the same order, without a call or a memory round
      // trip per row.
      let vax = v[a3]!, vay = v[a3 + 1]!, vaz = v[a3 + 2]!;
      let vbx = v[b3]!, vby = v[b3 + 1]!, vbz = v[b3 + 2]!;
      let wax = w[a3]!, way = w[a3 + 1]!, waz = w[a3 + 2]!;
      let wbx = w[b3]!, wby = w[b3 + 1]!, wbz = w[b3 + 2]!;
      let hit = false;
      const mu = this.mMu[m]!, muS = this.mMuS[m]!;
      // Normal rows; the relax sweeps a manifold's rows LOCAL_SWEEPS times (a
      // face's points are one block: one sweep leaves its first point with
      // the whole impulse and the box turning on it).
      const sweeps = bias ? 1 : this.localSweeps;
      // Each row's separation now and effective mass (sepNow, massNow). A
      // later sweep of the shock relax over the same level (fresh false)
      // finds them as its first sweep left them: the substep's motion and
      // the mass scales hold through the relax.
      if (fresh) {
        const qax = dq[a3]!, qay = dq[a3 + 1]!, qaz = dq[a3 + 2]!;
        const qbx = dq[b3]!, qby = dq[b3 + 1]!, qbz = dq[b3 + 2]!;
        const pax = dp[a3]!, pay = dp[a3 + 1]!, paz = dp[a3 + 2]!;
        const pbx = dp[b3]!, pby = dp[b3 + 1]!, pbz = dp[b3 + 2]!;
        for (let r = r0; r < r1; r++) {
          const base = JAC * r;
          const nx = jac[base]!, ny = jac[base + 1]!, nz = jac[base + 2]!;
          // Separation now: the base one plus the anchors' relative motion.
          const ax = ra[3 * r]!, ay = ra[3 * r + 1]!, az = ra[3 * r + 2]!;
          const bx = rb[3 * r]!, by = rb[3 * r + 1]!, bz = rb[3 * r + 2]!;
          const dx = pax + qay * az - qaz * ay - pbx - (qby * bz - qbz * by);
          const dy = pay + qaz * ax - qax * az - pby - (qbz * bx - qbx * bz);
          const dz = paz + qax * ay - qay * ax - pbz - (qbx * by - qby * bx);
          sepNow[r] = s0[r]! + nx * dx + ny * dy + nz * dz;
          massNow[r] = unit ? kinv[3 * r]! : effMass(ka[3 * r]!, kb[3 * r]!, sa, sb);
        }
      }
      for (let sw = 0; sw < sweeps; sw++) {
        let local = 0;
        for (let r = r0; r < r1; r++) {
          const o = JAC * r;
          const s = sepNow[r]!;
          let target = 0, massScale = 1, impulseScale = 0;
          if (s > 0) {
            target = -s * invH;
          } else if (bias) {
            const e = Math.min(s + slop[r]!, 0);
            target = Math.min(-so.biasRate * e, MAX_PUSH);
            massScale = so.massScale;
            impulseScale = so.impulseScale;
          }
          const un = jac[o]! * (vax - vbx) + jac[o + 1]! * (vay - vby) + jac[o + 2]! * (vaz - vbz)
            + jac[o + 3]! * wax + jac[o + 4]! * way + jac[o + 5]! * waz
            - jac[o + 6]! * wbx - jac[o + 7]! * wby - jac[o + 8]! * wbz;
          const mn = massNow[r]!;
          const old = lam[3 * r]!;
          const ln = Math.max(0, old + mn * massScale * (target - un) - impulseScale * old);
          lam[3 * r] = ln;
          if (ln > lamMax[r]!) lamMax[r] = ln;
          if (ln !== old) {
            const d = ln - old;
            const ia = ima * d * sa, ib = imb * d * sb, la = d * sa, lb = d * sb;
            vax += ia * jac[o]!; vay += ia * jac[o + 1]!; vaz += ia * jac[o + 2]!;
            vbx -= ib * jac[o]!; vby -= ib * jac[o + 1]!; vbz -= ib * jac[o + 2]!;
            wax += la * jac[o + 9]!; way += la * jac[o + 10]!; waz += la * jac[o + 11]!;
            wbx -= lb * jac[o + 12]!; wby -= lb * jac[o + 13]!; wbz -= lb * jac[o + 14]!;
            hit = true;
            const dv = Math.abs(d) / mn;
            if (dv > change) change = dv;
            if (dv > local) local = dv;
          }
        }
        // A sweep that changed no impulse leaves the next nothing to do (the
        // same velocities give the same rows): stop, exactly as if it ran.
        if (!(local > 0)) break;
      }
      // Friction at each point, within the disc of its own normal impulse,
      // after the normal rows (Box2D's order): the velocities the substep
      // then integrates into positions hold no slip the normal impulses made.
      let total = 0;
      for (let r = r0; r < r1; r++) total += lam[3 * r]!;
      if (muS > 0) {
        // Static friction (mu_s) while the manifold sticks, dynamic (mu_d)
        // while it slides. It breaks loose for the next step when its rows end
        // this one on their cones with the surfaces still slipping (store()):
        // judged on the whole manifold and the converged step, since row by
        // row, or in a first substep whose normal impulses have not built up,
        // a held box would break loose at once.
        const coef = this.mSlide[m] ? mu : muS;
        let clamped = 0;
        for (let r = r0; r < r1; r++) {
          const lim = coef * lam[3 * r]!;
          const o1 = lam[3 * r + 1]!, o2 = lam[3 * r + 2]!;
          const m1 = unit ? kinv[3 * r + 1]! : effMass(ka[3 * r + 1]!, kb[3 * r + 1]!, sa, sb);
          const m2 = unit ? kinv[3 * r + 2]! : effMass(ka[3 * r + 2]!, kb[3 * r + 2]!, sa, sb);
          const p = JAC * r + DIR, t = p + DIR;
          let n1 = o1 - m1 * (jac[p]! * (vax - vbx) + jac[p + 1]! * (vay - vby) + jac[p + 2]! * (vaz - vbz)
            + jac[p + 3]! * wax + jac[p + 4]! * way + jac[p + 5]! * waz
            - jac[p + 6]! * wbx - jac[p + 7]! * wby - jac[p + 8]! * wbz);
          let n2 = o2 - m2 * (jac[t]! * (vax - vbx) + jac[t + 1]! * (vay - vby) + jac[t + 2]! * (vaz - vbz)
            + jac[t + 3]! * wax + jac[t + 4]! * way + jac[t + 5]! * waz
            - jac[t + 6]! * wbx - jac[t + 7]! * wby - jac[t + 8]! * wbz);
          const len = Math.sqrt(n1 * n1 + n2 * n2);
          if (len > lim) {
            const f = len > 0 ? lim / len : 0;
            n1 *= f;
            n2 *= f;
            clamped = 1;
          }
          lam[3 * r + 1] = n1;
          lam[3 * r + 2] = n2;
          if (n1 !== o1) {
            const d = n1 - o1;
            const ia = ima * d * sa, ib = imb * d * sb, la = d * sa, lb = d * sb;
            vax += ia * jac[p]!; vay += ia * jac[p + 1]!; vaz += ia * jac[p + 2]!;
            vbx -= ib * jac[p]!; vby -= ib * jac[p + 1]!; vbz -= ib * jac[p + 2]!;
            wax += la * jac[p + 9]!; way += la * jac[p + 10]!; waz += la * jac[p + 11]!;
            wbx -= lb * jac[p + 12]!; wby -= lb * jac[p + 13]!; wbz -= lb * jac[p + 14]!;
            hit = true;
          }
          if (n2 !== o2) {
            const d = n2 - o2;
            const ia = ima * d * sa, ib = imb * d * sb, la = d * sa, lb = d * sb;
            vax += ia * jac[t]!; vay += ia * jac[t + 1]!; vaz += ia * jac[t + 2]!;
            vbx -= ib * jac[t]!; vby -= ib * jac[t + 1]!; vbz -= ib * jac[t + 2]!;
            wax += la * jac[t + 9]!; way += la * jac[t + 10]!; waz += la * jac[t + 11]!;
            wbx -= lb * jac[t + 12]!; wby -= lb * jac[t + 13]!; wbz -= lb * jac[t + 14]!;
            hit = true;
          }
        }
        this.mClamp[m] = clamped;
      }
      // Spinning and rolling friction: angular rows bounded by the
      // manifold's normal impulse (the seed's 7.2: the relative spin and
      // roll lose at most mu_spin j_n and mu_roll j_n of their speed).
      // A face against a static body (mLever) adds Coulomb friction's
      // hold on the spin, mu r_s j_n, to the spin row's bound.
      const spin = this.mSpin[m]!, roll = this.mRoll[m]!, twist = this.mLever[m]! * (this.mSlide[m] ? mu : muS);
      if ((spin > 0 || roll > 0 || twist > 0) && total > 0) {
        for (let d = 0; d < 3; d++) {
          const coef = d === 0 ? spin : roll;
          if (!(coef > 0) && !(d === 0 && twist > 0)) continue;
          const o = AJAC * m + ADIR * d;
          const q = sa * aka[3 * m + d]! + sb * akb[3 * m + d]!;
          if (!(q > 0)) continue;
          const old = al[3 * m + d]!;
          const wr = aj[o]! * (wax - wbx) + aj[o + 1]! * (way - wby) + aj[o + 2]! * (waz - wbz);
          const lim = (coef * total) / q + (d === 0 ? twist * total : 0);
          const nl = Math.max(-lim, Math.min(lim, old - wr / q));
          al[3 * m + d] = nl;
          if (nl !== old) {
            const dl = nl - old;
            const la = dl * sa, lb = dl * sb;
            wax += la * aj[o + 3]!; way += la * aj[o + 4]!; waz += la * aj[o + 5]!;
            wbx -= lb * aj[o + 6]!; wby -= lb * aj[o + 7]!; wbz -= lb * aj[o + 8]!;
            hit = true;
          }
        }
      }
      if (hit) {
        v[a3] = vax; v[a3 + 1] = vay; v[a3 + 2] = vaz;
        v[b3] = vbx; v[b3 + 1] = vby; v[b3 + 2] = vbz;
        w[a3] = wax; w[a3 + 1] = way; w[a3 + 2] = waz;
        w[b3] = wbx; w[b3 + 1] = wby; w[b3 + 2] = wbz;
        touchedNow[a] = 1;
        touchedNow[b] = 1;
      }
      if (shockLevel) { sc[a] = 1; sc[b] = 1; }
    }
    return change;
  }

  /**
   * The push-out of the split impulse: PSEUDO_ITERS sweeps over the
   * manifolds, each LOCAL_SWEEPS over its normal rows, on pseudo velocities
   * (pv, pw, zeroed first), each row
   * driving its pseudo normal velocity to the bias rate times its depth past
   * the slop (at most MAX_PUSH), with an impulse accumulated from 0 and
   * clamped at 0. Nothing of it reaches the velocities.
   */
  private pseudoPass(so: Soft, shockLevel: Int32Array | null): void {
    // (so.biasRate: the soft contact's rate, 60 Hz over damping ratio 10.)
    const pv = this.pv, pw = this.pw, act = this.activeList;
    for (let k = 0; k < this.activeCount; k++) {
      const i = act[k]!;
      pv[3 * i] = 0; pv[3 * i + 1] = 0; pv[3 * i + 2] = 0;
      pw[3 * i] = 0; pw[3 * i + 1] = 0; pw[3 * i + 2] = 0;
    }
    const jac = this.jac, pa = this.pa, pb = this.pb, sc = this.scale, im = this.im, ka = this.ka, kb = this.kb, s0 = this.s0, lp = this.lamP;
    const sepNow = this.sepNow, massNow = this.massNow;
    for (let r = 0; r < this.count; r++) lp[r] = 0;
    for (let it = 0; it < this.pseudoIters; it++)
    for (let m = 0; m < this.mcount; m++) {
      const r0 = this.mStart[m]!, r1 = this.mEnd[m]!;
      const a = pa[r0]!, b = pb[r0]!;
      // Shock propagation of the push-out: the lower body of a supporting
      // manifold is frozen (in a column, heavier by 1 / pseudoShockScale:
      // columnScales), so a stack's push-out climbs it in one sweep instead
      // of being shared back down (pseudo velocities move positions only: no
      // kinetic energy comes of it, though lifting a body out of a depth
      // past the slop adds potential energy; docs/DESIGN.md 4, "Rocking in
      // place"). A support more than LIGHT_SUPPORT times lighter than its
      // load is not frozen: the rows share its push-out by mass.
      sc[a] = 1; sc[b] = 1;
      if (shockLevel && this.mSupport[m]) {
        const la = shockLevel[a]!, lb = shockLevel[b]!;
        if (la < lb) { if (supportShare(im[a]!, im[b]!) === 1) sc[a] = this.pss[a]!; }
        else if (lb < la) { if (supportShare(im[b]!, im[a]!) === 1) sc[b] = this.pss[b]!; }
      }
      const sa = sc[a]!, sb = sc[b]!;
      // The rows' depths past the slop and masses hold through the call
      // (pseudo velocities move positions only after it).
      if (it === 0) {
        for (let r = r0; r < r1; r++) {
          const base = JAC * r;
          this.relMotion(r, a, b);
          const mv = this.mot;
          sepNow[r] = s0[r]! + jac[base]! * mv[0]! + jac[base + 1]! * mv[1]! + jac[base + 2]! * mv[2]! + this.slop[r]!;
          massNow[r] = effMass(ka[3 * r]!, kb[3 * r]!, sa, sb);
        }
      }
      // The two bodies' pseudo velocities in locals for the manifold's rows,
      // as in pass().
      const a3 = 3 * a, b3 = 3 * b, ima = im[a]!, imb = im[b]!;
      let vax = pv[a3]!, vay = pv[a3 + 1]!, vaz = pv[a3 + 2]!;
      let vbx = pv[b3]!, vby = pv[b3 + 1]!, vbz = pv[b3 + 2]!;
      let wax = pw[a3]!, way = pw[a3 + 1]!, waz = pw[a3 + 2]!;
      let wbx = pw[b3]!, wby = pw[b3 + 1]!, wbz = pw[b3 + 2]!;
      let hit = false;
      for (let sw = 0; sw < this.localSweeps; sw++) {
        let moved = false;
        for (let r = r0; r < r1; r++) {
          const o = JAC * r;
          const e = sepNow[r]!;
          if (!(e < 0) && lp[r] === 0) continue;
          const target = e < 0 ? Math.min(-so.biasRate * e, MAX_PUSH) : 0;
          const un = jac[o]! * (vax - vbx) + jac[o + 1]! * (vay - vby) + jac[o + 2]! * (vaz - vbz)
            + jac[o + 3]! * wax + jac[o + 4]! * way + jac[o + 5]! * waz
            - jac[o + 6]! * wbx - jac[o + 7]! * wby - jac[o + 8]! * wbz;
          const old = lp[r]!;
          const nl = Math.max(0, old + massNow[r]! * (target - un));
          lp[r] = nl;
          if (nl !== old) {
            const d = nl - old;
            const ia = ima * d * sa, ib = imb * d * sb, la = d * sa, lb = d * sb;
            vax += ia * jac[o]!; vay += ia * jac[o + 1]!; vaz += ia * jac[o + 2]!;
            vbx -= ib * jac[o]!; vby -= ib * jac[o + 1]!; vbz -= ib * jac[o + 2]!;
            wax += la * jac[o + 9]!; way += la * jac[o + 10]!; waz += la * jac[o + 11]!;
            wbx -= lb * jac[o + 12]!; wby -= lb * jac[o + 13]!; wbz -= lb * jac[o + 14]!;
            moved = true;
          }
        }
        // (A sweep that changed nothing would only repeat: stop.)
        if (!moved) break;
        hit = true;
      }
      if (hit) {
        pv[a3] = vax; pv[a3 + 1] = vay; pv[a3 + 2] = vaz;
        pv[b3] = vbx; pv[b3 + 1] = vby; pv[b3 + 2] = vbz;
        pw[a3] = wax; pw[a3 + 1] = way; pw[a3 + 2] = waz;
        pw[b3] = wbx; pw[b3 + 1] = wby; pw[b3 + 2] = wbz;
        touchedNow[a] = 1;
        touchedNow[b] = 1;
      }
      sc[a] = 1; sc[b] = 1;
    }
  }

  /**
   * Restitution, once after the substeps (Box2D's order): a point that
   * approached faster than RESTITUTION_STEPS |g| dt before the stage and
   * carried an impulse in it leaves at e times that speed, its normal
   * impulse accumulated on (never below 0). Slower approaches are resting
   * contacts, which must not bounce.
   */
  private restitutionPass(ctx: StepContext, v: Float64Array, w: Float64Array): void {
    const g = ctx.gravity;
    const slow = Math.max(RESTITUTION_STEPS * Math.hypot(g[0], g[1], g[2]) * ctx.dt, ctx.settings.collisionIterations > 0 ? MISSED_IMPACT_SPEED : 0, 1e-6);
    const jac = this.jac, lam = this.lam, pa = this.pa, pb = this.pb, sc = this.scale, im = this.im;
    for (let m = 0; m < this.mcount; m++) {
      const e = this.mRest[m]!;
      if (!(e > 0)) continue;
      for (let r = this.mStart[m]!; r < this.mEnd[m]!; r++) {
        if (!(this.vn0[r]! < -slow) || !(this.lamMax[r]! > 0)) continue;
        const a = pa[r]!, b = pb[r]!, base = JAC * r;
        const un = rowVel(jac, base, v, w, a, b);
        const mn = effMass(this.ka[3 * r]!, this.kb[3 * r]!, 1, 1);
        const old = lam[3 * r]!;
        const ln = Math.max(0, old + mn * (-e * this.vn0[r]! - un));
        lam[3 * r] = ln;
        if (ln !== old) { IMPULSE[0] = ln - old; applyScaled(jac, base, v, w, im, sc, a, b); }
      }
    }
  }

  /**
   * The last relax with shock propagation: the manifolds level by level
   * (they are built in pairs.order, by level), each level's swept until its
   * normal rows change no velocity beyond SHOCK_TOL (at most SHOCK_SWEEPS
   * sweeps), the lower body of each supporting manifold heavier by
   * 1 / SHOCK_SCALE: the seed's bottom-up pass with a finite mass.
   */
  private shockRelax(ctx: StepContext, v: Float64Array, w: Float64Array, h: number, so: Soft): void {
    const lv = ctx.level;
    // A light support's rows act on a body made heavier than its load
    // (supportShare): their impulses there are not the bodies' own, and
    // applied again as the next step's warm start they threw the load. Those
    // rows keep, for the store, what the relax found them with.
    const keep = this.anyLight ? this.keepLightRows(lv) : 0;
    this.shockSweep(v, w, h, so, lv);
    if (keep > 0) this.keepLightRows(lv, true);
  }

  /** The light supports' rows' impulses (lam, alam) into keptLam, or back from it (restore); returns how many floats. */
  private keepLightRows(lv: Int32Array, restore = false): number {
    const lam = this.lam, al = this.alam;
    let n = 0;
    for (let m = 0; m < this.mcount; m++) {
      if (!this.isLightSupport(m, lv)) continue;
      const r0 = this.mStart[m]!, r1 = this.mEnd[m]!;
      const need = n + 3 * (r1 - r0) + 3;
      if (!restore && this.keptLam.length < need) {
        const grown = new Float64Array(2 * need);
        grown.set(this.keptLam);
        this.keptLam = grown;
      }
      const kept = this.keptLam;
      for (let i = 3 * r0; i < 3 * r1; i++, n++) {
        if (restore) lam[i] = kept[n]!;
        else kept[n] = lam[i]!;
      }
      for (let c = 0; c < 3; c++, n++) {
        if (restore) al[3 * m + c] = kept[n]!;
        else kept[n] = al[3 * m + c]!;
      }
    }
    return n;
  }

  /** The last relax's sweeps, level by level (shockRelax). */
  private shockSweep(v: Float64Array, w: Float64Array, h: number, so: Soft, lv: Int32Array): void {
    let g = 0;
    while (g < this.mcount) {
      const L = this.mLevel[g]!;
      let e = g + 1;
      while (e < this.mcount && this.mLevel[e] === L) e++;
      for (let sw = 0; sw < this.shockSweeps; sw++) {
        if (this.pass(v, w, h, false, so, g, e, lv, sw === 0) < SHOCK_TOL) break;
      }
      g = e;
    }
  }

  // ------------------------------------------------------------ building

  /** The solver's inverse masses (ctx.invMass), bound for the step. */
  private im = new Float64Array(0);

  /** Reduces, matches and prepares every pair's points (see the file comment). */
  private build(ctx: StepContext, cs: ContactSet, pairs: PairList): void {
    const B = ctx.bodies;
    this.im = ctx.invMass;
    this.count = 0;
    this.mcount = 0;
    this.activeCount = 0;
    this.stats.candidates = 0;
    this.stats.warmPoints = 0;
    this.active.fill(0);
    this.touched.fill(0);
    // Pairs in level order for solving, but the store merges in canonical
    // order: solve in pairs.order, look the store up by a cursor per pair.
    this.indexStore(pairs);
    const order = pairs.order;
    for (let o = 0; o < pairs.count; o++) {
      const k = order[o]!;
      if (cs.start[k] === cs.end[k]) continue;
      const a = pairs.a[k]!, b = pairs.b[k]!;
      if (ctx.invMass[a] === 0 && ctx.invMass[b] === 0) continue;
      const cell = pairCell(ctx.shapes, B, a, b);
      const mat = pairMaterial(B, a, b, this.mat);
      this.curLevel = pairs.level[k]!;
      this.bounced = pairs.impactStep[k] === ctx.serial;
      this.reducePair(ctx, cs, pairs, k, a, b, cell, mat);
    }
  }

  /** Where each pair's stored manifolds start and end (pairs in canonical order, store likewise). */
  pairMan = new Int32Array(0);
  pairManEnd = new Int32Array(0);

  private indexStore(pairs: PairList): void {
    this.points.index(pairs);
    const np = pairs.count;
    if (this.pairMan.length < np) growColumns(this, PAIR_COLUMNS, 2 * np + 16);
    let j = 0;
    for (let k = 0; k < np; k++) {
      const a = pairs.a[k]!, b = pairs.b[k]!;
      while (j < this.smCount && (this.smA[j]! < a || (this.smA[j] === a && this.smB[j]! < b))) j++;
      this.pairMan[k] = j;
      while (j < this.smCount && this.smA[j] === a && this.smB[j] === b) j++;
      this.pairManEnd[k] = j;
    }
  }

  private reducePair(ctx: StepContext, cs: ContactSet, pairs: PairList, k: number, a: number, b: number, cell: number, mat: Material): void {
    const s = cs.start[k]!, e = cs.end[k]!;
    // Candidates: points predicted to penetrate, or within the margin now.
    let nc = 0;
    if (this.cand.length < e - s) growColumns(this, CANDIDATE_COLUMNS, 2 * (e - s));
    const take = TAKE_CELLS * cell;
    // Whether each candidate was a point of the pair's manifolds last step
    // (isKept), looked up once: the reduction's loops ask again and again.
    const stored = this.points.has(k);
    this.keptBase = s;
    for (let i = s; i < e; i++) {
      if (!(cs.phi[i]! < take)) continue;
      const sign = cs.b1[i] === a ? 1 : -1;
      this.keptAt[i - s] = stored && this.points.find(k, contactKey(cs, a, i)) >= 0 ? 1 : 0;
      this.cand[nc] = i;
      this.candN[3 * nc] = sign * cs.n[3 * i]!;
      this.candN[3 * nc + 1] = sign * cs.n[3 * i + 1]!;
      this.candN[3 * nc + 2] = sign * cs.n[3 * i + 2]!;
      this.used[nc] = 0;
      nc++;
    }
    this.stats.candidates += nc;
    if (nc === 0) return;
    // A kept point's edge in the leader's choice, but not against a plane
    // (or a static body's flat face, flatSupport; "against a plane" below
    // means either): there a body that rolls or rocks pivots on one sample
    // while the next one comes down, and a kept leader let the next sink
    // (88 um at a 48-gon's vertex) before it led; the push-out then lifted
    // the body, and a rocking hemisphere's swing doubled in two swings.
    const keepD = KEEP_CELLS * cell;
    // A sphere's one point on a plane (narrowphase.ts, spherePlanePoint) is
    // exact, as its point on a box is: taken as a mesh pair's, not re-found
    // where the fields meet (through the sphere's grid, half a step on, a
    // ball rolling over a plane changed speed by up to 0.13 % a second).
    // So are a capsule's and a cylinder's points on a plane (roundPlanePoints).
    const exactPlane = pairs.kind[k] === PAIR_PLANE && exactOnPlane(ctx.shapeOf(a));
    const planeLike = !exactPlane && (pairs.kind[k] === PAIR_PLANE || this.flatSupport(ctx, cs, nc, a, b, cell));
    this.ballSide = pairs.kind[k] === PAIR_MESH ? meshBall(ctx, a, b) : -1;
    const keepLead = planeLike ? 0 : keepD;
    // Two rounds over the same clusters: the first only sizes them up, the
    // second makes manifolds of all but a face's rim artefacts (dropRim).
    let ncl = 0;
    // The first cluster as round 0 left it: a pair with one cluster (most)
    // has no rim to drop, and round 1 would find the same again.
    let lead0 = -1, nm0 = 0, mx0 = 0, my0 = 0, mz0 = 0, face0 = false;
    for (let round = 0; round < 2; round++) {
    if (round === 1) {
      if (ncl === 1) {
        this.faceFit = face0;
        this.meshPair = !planeLike;
        this.addManifold(ctx, cs, k, a, b, lead0, nm0, mx0, my0, mz0, cell, mat);
        return;
      }
      this.dropRim(ncl);
      for (let c = 0; c < nc; c++) this.used[c] = 0;
    }
    let cl = 0;
    for (;;) {
      // The deepest point left (a kept one a little deeper) leads a cluster.
      let lead = -1, best = Infinity;
      for (let c = 0; c < nc; c++) {
        if (this.used[c]) continue;
        const i = this.cand[c]!;
        const d = cs.phi[i]! - (this.isKept(i) ? keepLead : 0);
        if (d < best) { best = d; lead = c; }
      }
      if (lead < 0) break;
      // The cluster: the points within CLUSTER_COS of a normal that starts
      // as the leader's and becomes the members' mean, twice refined. At a
      // face, the samples near the other body's rim read a normal the field
      // rounds there (up to ~26 degrees off, either way); the mean over the
      // face cancels them, whichever point happens to be deepest.
      let mx = this.candN[3 * lead]!, my = this.candN[3 * lead + 1]!, mz = this.candN[3 * lead + 2]!;
      let nm = 0;
      for (let pass = 0; pass < 3; pass++) {
        nm = 0;
        let sx = 0, sy = 0, sz = 0;
        for (let c = 0; c < nc; c++) {
          if (this.used[c]) continue;
          const cx = this.candN[3 * c]!, cy = this.candN[3 * c + 1]!, cz = this.candN[3 * c + 2]!;
          if (c !== lead && cx * mx + cy * my + cz * mz < CLUSTER_COS) continue;
          this.members[nm++] = c;
          sx += cx; sy += cy; sz += cz;
        }
        const l = Math.sqrt(sx * sx + sy * sy + sz * sz);
        if (!(l > 0)) break;
        mx = sx / l; my = sy / l; mz = sz / l;
      }
      for (let m = 0; m < nm; m++) {
        const c = this.members[m]!;
        this.used[c] = 1;
        this.members[m] = this.cand[c]!;
      }
      // A face: the plane through the members' points is a sharper normal
      // than the field's gradients, which all read the other body's rim when
      // two equal faces meet edge on edge (planeNormal).
      let lead2 = this.cand[lead]!;
      this.faceFit = false;
      this.meshPair = !planeLike;
      // (Three points always lie in a plane: a fit needs a fourth. A plane
      // pair's normals and gaps are exact already.)
      if (nm >= 4 && !planeLike && planeNormal(cs.p, this.members, nm, mx, my, mz, this.fit)) {
        mx = this.fit[0]!; my = this.fit[1]!; mz = this.fit[2]!;
        // The members' gaps, fitted by a plane over the face (gap = c0 +
        // c1 u + c2 v): the field's value at a rim sample is as rounded as
        // its normal, and one rim sample reading 3 mm deep where the face
        // lies 1.5 mm in would lead the manifold and push alone.
        if (this.fitGaps(cs, nm, mx, my, mz, FIT_RAISE_CELLS * cell)) {
          this.faceFit = true;
          let best = Infinity;
          for (let m = 0; m < nm; m++) {
            const i = this.members[m]!;
            const d = this.smooth[i]! - (this.isKept(i) ? keepD : 0);
            if (d < best) { best = d; lead2 = i; }
          }
        }
      }
      if (round === 0) {
        if (cl === 0) {
          lead0 = lead2; nm0 = nm; mx0 = mx; my0 = my; mz0 = mz; face0 = this.faceFit;
        }
        if (this.clN.length < 3 * (cl + 1)) growColumns(this, CLUSTER_COLUMNS, 2 * (cl + 1));
        this.clN[3 * cl] = mx; this.clN[3 * cl + 1] = my; this.clN[3 * cl + 2] = mz;
        this.clCount[cl] = nm;
        this.clFace[cl] = this.faceFit ? 1 : 0;
        cl++;
        ncl = cl;
        continue;
      }
      if (this.clDrop[cl++]) continue;
      this.addManifold(ctx, cs, k, a, b, lead2, nm, mx, my, mz, cell, mat);
    }
    }
  }

  /**
   * Marks clusters 0..n-1 of the pair being reduced that are a face's rim
   * artefacts: fewer points than a face cluster of the pair whose normal is
   * within RIM_COS of theirs. Where two faces meet edge on edge, the field
   * rounds the other body's rim, and its samples there read normals up to
   * 45 degrees off the face's, which a rigid row would push sideways with.
   */
  private dropRim(n: number): void {
    const N = this.clN;
    for (let c = 0; c < n; c++) {
      this.clDrop[c] = 0;
      for (let f = 0; f < n; f++) {
        if (f === c || !this.clFace[f] || this.clCount[f]! <= this.clCount[c]!) continue;
        const d = N[3 * c]! * N[3 * f]! + N[3 * c + 1]! * N[3 * f + 1]! + N[3 * c + 2]! * N[3 * f + 2]!;
        if (d > RIM_COS) { this.clDrop[c] = 1; break; }
      }
    }
  }
  clN = new Float64Array(24);
  clCount = new Int32Array(8);
  clFace = new Uint8Array(8);
  clDrop = new Uint8Array(8);

  /** Whether the manifold being built is a face whose gaps were fitted (smooth[i] holds them). */
  private faceFit = false;
  /** Whether the pair being reduced is two meshes (not a body on a plane or on a static body's flat face). */
  private meshPair = false;
  private smooth = new Float64Array(0);
  private readonly nrm = new Float64Array(12);

  /**
   * Least-squares plane of the members' gaps over their tangent coordinates,
   * evaluated back at each member into smooth[i], lowered until it lifts
   * no member above its own gap if it lifts one by more than `raise`
   * (FIT_RAISE_CELLS); false if singular (the members on a line).
   */
  private fitGaps(cs: ContactSet, nm: number, nx: number, ny: number, nz: number, raise: number): boolean {
    const t = this.basis;
    tangentBasis(nx, ny, nz, t);
    if (this.smooth.length < cs.count) this.smooth = new Float64Array(2 * cs.count);
    const P = cs.p, mem = this.members;
    const i0 = mem[0]!;
    const ox = P[3 * i0]!, oy = P[3 * i0 + 1]!, oz = P[3 * i0 + 2]!;
    const A = this.nrm;
    A.fill(0);
    for (let m = 0; m < nm; m++) {
      const i = mem[m]!;
      const dx = P[3 * i]! - ox, dy = P[3 * i + 1]! - oy, dz = P[3 * i + 2]! - oz;
      const u = dx * t[0]! + dy * t[1]! + dz * t[2]!, v = dx * t[3]! + dy * t[4]! + dz * t[5]!;
      const g = cs.gap[i]!;
      A[0] += 1; A[1] += u; A[2] += v; A[4] += u * u; A[5] += u * v; A[8] += v * v;
      A[9] += g; A[10] += u * g; A[11] += v * g;
    }
    A[3] = A[1]!; A[6] = A[2]!; A[7] = A[5]!;
    const rhs = this.fitRhs;
    rhs[0] = A[9]!; rhs[1] = A[10]!; rhs[2] = A[11]!;
    const M = this.fitM;
    for (let c = 0; c < 9; c++) M[c] = A[c]!;
    if (!solveDense(M, rhs, 3)) return false;
    const c0 = rhs[0]!, c1 = rhs[1]!, c2 = rhs[2]!;
    if (!Number.isFinite(c0 + c1 + c2)) return false;
    let lift = 0;
    for (let m = 0; m < nm; m++) {
      const i = mem[m]!;
      const dx = P[3 * i]! - ox, dy = P[3 * i + 1]! - oy, dz = P[3 * i + 2]! - oz;
      const u = dx * t[0]! + dy * t[1]! + dz * t[2]!, v = dx * t[3]! + dy * t[4]! + dz * t[5]!;
      this.smooth[i] = c0 + c1 * u + c2 * v;
      lift = Math.max(lift, this.smooth[i]! - cs.gap[i]!);
    }
    if (lift > raise) for (let m = 0; m < nm; m++) this.smooth[mem[m]!] -= lift;
    return true;
  }
  private readonly fitRhs = new Float64Array(3);
  private readonly fitM = new Float64Array(9);

  /**
   * Whether a moving body meets a static one on a flat part of it (a box's
   * face, a slab), which is then treated as a plane: the static body's
   * normals at the moving body's candidate samples within FLAT_SUPPORT_COS
   * of each other (three or more), and its field as flat a cell to either
   * side of the deepest of them along both tangents (a peg's side is not).
   */
  private flatSupport(ctx: StepContext, cs: ContactSet, nc: number, a: number, b: number, cell: number): boolean {
    const sa = ctx.bodies.isStatic[a]!, sb = ctx.bodies.isStatic[b]!;
    if (sa === sb) return false;
    const mover = sa ? b : a;
    let count = 0, ox = 0, oy = 0, oz = 0, deep = -1;
    for (let c = 0; c < nc; c++) {
      const i = this.cand[c]!;
      if (cs.b1[i] !== mover) continue;
      const x = cs.n[3 * i]!, y = cs.n[3 * i + 1]!, z = cs.n[3 * i + 2]!;
      if (count === 0) { ox = x; oy = y; oz = z; } else if (x * ox + y * oy + z * oz < FLAT_SUPPORT_COS) return false;
      if (deep < 0 || cs.phi[i]! < cs.phi[deep]!) deep = i;
      count++;
    }
    if (count < 3) return false;
    const P = cs.p;
    return flatAround(ctx, sa ? a : b, P[3 * deep]!, P[3 * deep + 1]!, P[3 * deep + 2]!, ox, oy, oz, cell, FLAT_SUPPORT_COS);
  }

  /** The true sphere of the mesh pair being reduced (its body), or -1: its manifolds take one point each, under its centre (addManifold). */
  private ballSide = -1;
  /** addManifold's scratch: the other body's field at the sphere's centre, and the centre (ballField). */
  private readonly ballN = new Float64Array(7);

  /** Whether point i of pair k (body a first) was one of last step's solver points. */
  private isKept(i: number): boolean {
    return this.keptAt[i - this.keptBase] === 1;
  }

  /** Picks at most MANIFOLD_POINTS of the cluster's members and prepares them as one manifold. */
  private addManifold(ctx: StepContext, cs: ContactSet, k: number, a: number, b: number, lead: number, nm: number,
    nx: number, ny: number, nz: number, cell: number, mat: Material): void {
    const P = cs.p, ch = this.chosen;
    // The span is chosen twice: unweighted first, which says whether the
    // patch is curved (meetsCurved reads how far its points' gaps part, and
    // points weighted toward touching would all look like one face), then
    // weighted toward touching (span).
    let nch = this.span(cs, lead, nm, nx, ny, nz, cell, false);
    const meetAt = this.meetsCurved(cs, lead, nch, cell);
    if (!this.meshPair && !this.faceFit) nch = this.span(cs, lead, nm, nx, ny, nz, cell, true);
    // A true sphere meets a mesh at one point of a cluster, on its surface
    // under its centre (below), where the mesh's grid reaches the centre:
    // the leader alone.
    const ball = this.ballSide >= 0 && ballField(ctx, this.ballSide, this.ballSide === a ? b : a, this.ballN) ? this.ballSide : -1;
    if (ball >= 0) nch = 1;
    // Sort the chosen by key, so the store stays in key order within the pair.
    for (let x = 1; x < nch; x++) {
      const t = ch[x]!, kt = contactKey(cs, a, t);
      let y = x - 1;
      while (y >= 0 && contactKey(cs, a, ch[y]!) > kt) { ch[y + 1] = ch[y]!; y--; }
      ch[y + 1] = t;
    }
    const m = this.mcount++;
    this.ensureManifolds(this.mcount);
    this.ensurePoints(this.count + nch);
    this.mStart[m] = this.count;
    this.mPair[m] = k;
    this.mLevel[m] = this.curLevel;
    const g = ctx.gravity, gl = Math.hypot(g[0], g[1], g[2]);
    this.mSupport[m] = gl > 0 && Math.abs(nx * g[0] + ny * g[1] + nz * g[2]) > SUPPORT_COS * gl ? 1 : 0;
    this.mMu[m] = mat.friction;
    this.mMuS[m] = Math.max(mat.staticFriction, mat.friction);
    this.mSlide[m] = 0;
    this.mClamp[m] = 0;
    this.mRest[m] = this.bounced ? 0 : mat.restitution;
    this.mRoll[m] = mat.rolling;
    this.mSpin[m] = mat.spinning;
    const basis = this.basis;
    tangentBasis(nx, ny, nz, basis);
    // Against a static body, a face's spin is held at the lever of the area
    // it presses (ALGORITHM.md 4.6): about the centre of its flat points.
    const fc = this.faceCentre;
    const lever = (ctx.bodies.isStatic[a] === 1 || ctx.bodies.isStatic[b] === 1) && nm >= 3 && !meetAt ? faceLever(ctx, cs, this.members, nm, lead, cell, basis, fc) : 0;
    const fcx = fc[0]!, fcy = fc[1]!, fcz = fc[2]!;
    this.mLever[m] = lever;
    const X = ctx.bodies.pos;
    const im = ctx.invMass, II = ctx.invInertia;
    const ima = im[a]!, imb = im[b]!;
    let fresh = 0, matched = 0;
    const rolls = meetAt && !this.meshPair && this.rollCentre(ctx, cs, a, b, lead, nm, nx, ny, nz, cell) && this.rollsAlongCreases(ctx, cs, nch);
    for (let c = 0; c < nch; c++) {
      const i = ch[c]!;
      const r = this.count++;
      this.pa[r] = a;
      this.pb[r] = b;
      this.pm[r] = m;
      const key = contactKey(cs, a, i);
      this.pkey[r] = key;
      let px = P[3 * i]!, py = P[3 * i + 1]!, pz = P[3 * i + 2]!;
      // A curved patch's point: where the surfaces meet at the current
      // poses, with the normal and gap there (meetsCurved). A
      // sample on a crease (a box's corner) is the contact point itself and
      // stays, unless the manifold touches with creases the roll runs along
      // (a lying cylinder's rims, a coarse tube's rings: rolls).
      let met = false, metGap = 0, mnx = 0, mny = 0, mnz = 0, ballGap = NaN;
      const creases = ctx.shapeOf(cs.b1[i]!).samples.creases;
      let rolled = false;
      if (rolls) {
        // Moved along the roll to the centre of the patch's touching points,
        // at the depth of its deepest (the seed's curved patch,
        // PatchBuilder.build). Kept where they were, a tessellated
        // cylinder's vertex lines landed in turn, as a polygon's do, and a
        // 48-gon rolled down a slope 4.2 % slower than the smooth solid
        // (now 0.34 %; ALGORITHM.md 4.6).
        const d = this.rollDir, c = (px * d[0]! + py * d[1]! + pz * d[2]!) - this.rollAt;
        px -= c * d[0]!; py -= c * d[1]!; pz -= c * d[2]!;
        rolled = true;
      } else if (meetAt && creases && !onCreaseAt(creases, 6 * cs.sample[i]!)) {
        const sg = cs.b1[i] === a ? 1 : -1;
        const meet = this.meet;
        met = meet.find(ctx, a, b, px, py, pz, sg * cs.n[3 * i]!, sg * cs.n[3 * i + 1]!, sg * cs.n[3 * i + 2]!, MEET_REACH_CELLS * cell, CLUSTER_COS);
        if (met) {
          px = meet.px; py = meet.py; pz = meet.pz;
          metGap = meet.gap; mnx = meet.nx; mny = meet.ny; mnz = meet.nz;
          // The anchor: where they meet half a step on, relative to the
          // centres there (meetsCurved).
          const ahead = MEET_AHEAD * ctx.dt;
          if (meet.find(ctx, a, b, px, py, pz, mnx, mny, mnz, MEET_REACH_CELLS * cell, CLUSTER_COS, ahead)) {
            const shift = this.shift;
            meet.centreMotion(ctx, ctx.invMass[a]! > 0 ? a : b, ahead, shift);
            px = meet.px - shift[0]!; py = meet.py - shift[1]!; pz = meet.pz - shift[2]!;
          }
          // Samples that meet at one point are one point: a second row there
          // would only split the first's impulse.
          let dup = false;
          const near2 = (MEET_SAME_CELLS * cell) ** 2;
          for (let q = this.mStart[m]!; q < r && !dup; q++) {
            const dx = this.ra[3 * q]! + X[3 * a]! - px, dy = this.ra[3 * q + 1]! + X[3 * a + 1]! - py, dz = this.ra[3 * q + 2]! + X[3 * a + 2]! - pz;
            dup = dx * dx + dy * dy + dz * dz < near2;
          }
          if (dup) {
            this.count--;
            continue;
          }
        }
      }
      // A face's points share its normal; on a curved patch (a ring on a
      // ring, a cup's rim) each point is pushed along its own: a point's gap
      // is measured along its own normal, and the cluster's mean, up to 37
      // degrees off, pushed a deep point where it did not come out.
      let qx = nx, qy = ny, qz = nz, tb = basis;
      if (met) {
        qx = mnx; qy = mny; qz = mnz;
        tb = this.pointBasis;
        tangentBasis(qx, qy, qz, tb);
      } else if (!this.faceFit) {
        const sg = cs.b1[i] === a ? 1 : -1;
        qx = sg * cs.n[3 * i]!; qy = sg * cs.n[3 * i + 1]!; qz = sg * cs.n[3 * i + 2]!;
        tb = this.pointBasis;
        tangentBasis(qx, qy, qz, tb);
      }
      if (ball >= 0) {
        // Along the other body's field's gradient at the sphere's centre
        // (the line from its nearest surface point through the centre),
        // on the sphere's surface where that line leaves it (the normal
        // points out of b): a push along it then passes through the centre
        // and turns a frictionless ball not at all, and the ball's own
        // turning moves the point's separation not at all. (At the samples
        // where the fields meet, a few millimetres to the side, the pushes
        // of a ball swinging frictionless in a bowl spun it up to 7 rad/s
        // in 2 s, half again its energy; moved under the centre but along
        // the meeting point's normal, read a cell wide, it drifted 23 mm off
        // its swing plane in 5 s, and along the cluster's mean normal, read
        // at the predicted pose, it lost a quarter of its energy.)
        const sph = ctx.shapeOf(ball).sphere!, N = this.ballN;
        const cx = N[4]!, cy = N[5]!, cz = N[6]!;
        const sg = ball === a ? 1 : -1;
        // (A cluster whose normal is far from it, one side of a groove the
        // ball lies in, keeps its own: the field's gradient at the centre
        // is one normal, and the groove's sides are two.)
        const own = sg * (N[0]! * qx + N[1]! * qy + N[2]! * qz) >= CLUSTER_COS;
        if (own) {
          qx = sg * N[0]!; qy = sg * N[1]!; qz = sg * N[2]!;
          ballGap = N[3]! - sph.radius;
        }
        // The normal half a step on (MEET_AHEAD, as a meeting point's):
        // taken at the centre now, it tilts the ball's path onto the tangent
        // there, which a concave support curves up into, and each step's
        // push-out lifted a ball swinging in a bowl out of it without
        // taking its speed, 12 % more energy in 5 s.
        const other = ball === a ? b : a, V = ctx.bodies.vel, W = ctx.bodies.angVel;
        const ahead = MEET_AHEAD * ctx.dt;
        const ox = cx - X[3 * other]!, oy = cy - X[3 * other + 1]!, oz = cz - X[3 * other + 2]!;
        const wx = W[3 * other]!, wy = W[3 * other + 1]!, wz = W[3 * other + 2]!;
        const ux = V[3 * ball]! - V[3 * other]! - (wy * oz - wz * oy);
        const uy = V[3 * ball + 1]! - V[3 * other + 1]! - (wz * ox - wx * oz);
        const uz = V[3 * ball + 2]! - V[3 * other + 2]! - (wx * oy - wy * ox);
        if (own && fieldAt(ctx, other, cx + ahead * ux, cy + ahead * uy, cz + ahead * uz, N)) {
          qx = sg * N[0]!; qy = sg * N[1]!; qz = sg * N[2]!;
        }
        tb = this.pointBasis;
        tangentBasis(qx, qy, qz, tb);
        const side = ball === a ? -sph.radius : sph.radius;
        px = cx + side * qx; py = cy + side * qy; pz = cz + side * qz;
      }
      const rax = px - X[3 * a]!, ray = py - X[3 * a + 1]!, raz = pz - X[3 * a + 2]!;
      const rbx = px - X[3 * b]!, rby = py - X[3 * b + 1]!, rbz = pz - X[3 * b + 2]!;
      this.ra[3 * r] = rax; this.ra[3 * r + 1] = ray; this.ra[3 * r + 2] = raz;
      this.rb[3 * r] = rbx; this.rb[3 * r + 1] = rby; this.rb[3 * r + 2] = rbz;
      const base = JAC * r;
      this.setDir(base, 3 * r, qx, qy, qz, rax, ray, raz, rbx, rby, rbz, a, b, ima, imb, II);
      if (lever > 0) {
        // Each friction row acts where its direction's line through the
        // point crosses the centre's: moved along the other tangent, so it
        // has no lever about the normal through the centre (the manifold's
        // spin row holds that), and the same for both bodies.
        const dx = px - fcx, dy = py - fcy, dz = pz - fcz;
        const s2 = dx * tb[3]! + dy * tb[4]! + dz * tb[5]!, s1 = dx * tb[0]! + dy * tb[1]! + dz * tb[2]!;
        this.setDir(base + DIR, 3 * r + 1, tb[0]!, tb[1]!, tb[2]!, rax - s2 * tb[3]!, ray - s2 * tb[4]!, raz - s2 * tb[5]!, rbx - s2 * tb[3]!, rby - s2 * tb[4]!, rbz - s2 * tb[5]!, a, b, ima, imb, II);
        this.setDir(base + 2 * DIR, 3 * r + 2, tb[3]!, tb[4]!, tb[5]!, rax - s1 * tb[0]!, ray - s1 * tb[1]!, raz - s1 * tb[2]!, rbx - s1 * tb[0]!, rby - s1 * tb[1]!, rbz - s1 * tb[2]!, a, b, ima, imb, II);
      } else {
        this.setDir(base + DIR, 3 * r + 1, tb[0]!, tb[1]!, tb[2]!, rax, ray, raz, rbx, rby, rbz, a, b, ima, imb, II);
        this.setDir(base + 2 * DIR, 3 * r + 2, tb[3]!, tb[4]!, tb[5]!, rax, ray, raz, rbx, rby, rbz, a, b, ima, imb, II);
      }
      this.s0[r] = ballGap === ballGap ? ballGap : met ? metGap : rolled ? this.rollGap : this.faceFit ? this.smooth[i]! : cs.gap[i]!;
      this.slop[r] = SLOP_CELLS * cell;
      // Warm start from the store.
      const o = this.points.find(k, key);
      let ln = 0, l1 = 0, l2 = 0;
      this.isNew[r - this.mStart[m]!] = o >= 0 ? 0 : 1;
      if (o < 0) fresh++;
      if (o >= 0) {
        const imp = this.points.imp;
        ln = imp[STORE_IMPULSE * o]!;
        const fx = imp[STORE_IMPULSE * o + 1]!, fy = imp[STORE_IMPULSE * o + 2]!, fz = imp[STORE_IMPULSE * o + 3]!;
        l1 = fx * tb[0]! + fy * tb[1]! + fz * tb[2]!;
        l2 = fx * tb[3]! + fy * tb[4]! + fz * tb[5]!;
        const lim = Math.max(mat.staticFriction, mat.friction) * ln, len = Math.sqrt(l1 * l1 + l2 * l2);
        if (len > lim) { const f = len > 0 ? lim / len : 0; l1 *= f; l2 *= f; }
        this.stats.warmPoints++;
      }
      matched += ln;
      this.lam[3 * r] = ln;
      this.lam[3 * r + 1] = l1;
      this.lam[3 * r + 2] = l2;
    }
    this.mEnd[m] = this.count;
    // Angular rows: spin about the normal, roll about the tangents.
    const ao = AJAC * m;
    this.setAxis(ao, 3 * m, nx, ny, nz, a, b, ima, imb, II);
    this.setAxis(ao + ADIR, 3 * m + 1, basis[0]!, basis[1]!, basis[2]!, a, b, ima, imb, II);
    this.setAxis(ao + 2 * ADIR, 3 * m + 2, basis[3]!, basis[4]!, basis[5]!, a, b, ima, imb, II);
    this.alam[3 * m] = 0; this.alam[3 * m + 1] = 0; this.alam[3 * m + 2] = 0;
    // The stored manifold of this pair whose normal is closest.
    let bestS = -1, bestC = CORE_COS;
    for (let j = this.pairMan[k]!; j < this.pairManEnd[k]!; j++) {
      const d = this.smData;
      const c = d[SM * j]! * nx + d[SM * j + 1]! * ny + d[SM * j + 2]! * nz;
      if (c > bestC) { bestC = c; bestS = j; }
    }
    if (bestS >= 0) {
      const d = this.smData;
      // A manifold that ended last step sliding goes on sliding (mu_d) until it stops.
      this.mSlide[m] = d[SM * bestS + 7]! > 0 ? 1 : 0;
      if (mat.rolling > 0 || mat.spinning > 0 || lever > 0) {
        const jx = d[SM * bestS + 3]!, jy = d[SM * bestS + 4]!, jz = d[SM * bestS + 5]!;
        if (mat.spinning > 0 || lever > 0) this.alam[3 * m] = jx * nx + jy * ny + jz * nz;
        if (mat.rolling > 0) {
          this.alam[3 * m + 1] = jx * basis[0]! + jy * basis[1]! + jz * basis[2]!;
          this.alam[3 * m + 2] = jx * basis[3]! + jy * basis[4]! + jz * basis[5]!;
        }
      }
      // Points new to the store share what the manifold carried beyond its
      // kept points: on a curved patch (a ring on a ring) the deepest
      // samples change from step to step, and points that started from zero
      // would let the load drop for a substep.
      if (fresh > 0) {
        const rest = d[SM * bestS + 6]! - matched;
        if (rest > 0) {
          const share = rest / fresh;
          for (let r = this.mStart[m]!; r < this.count; r++) if (this.lam[3 * r] === 0 && this.isNew[r - this.mStart[m]!]) this.lam[3 * r] = share;
        }
      }
    }
    if (ima > 0) this.activate(a);
    if (imb > 0) this.activate(b);
  }

  /**
   * The points spanning the manifold of a cluster (leader `lead`, its `nm`
   * members in `members`, normal n) into `chosen`; returns how many (at most
   * MANIFOLD_POINTS): the leader, the farthest from it, the one adding the
   * largest triangle, the one adding the most area on the other side.
   *
   * Only points nearly as deep as the leader span the manifold: where a
   * curved body has sunk into another, the farthest candidates sit at the
   * rim of the sunk region, barely touching, and one deep point pushed
   * alone rocks the body instead of lifting it. `touching`: against a
   * plane, a spanning point counts for less the farther it stands off the
   * floor now (the leader's gap: 1; the band's edge: 0): the farthest sample
   * in the band may stand 0.6 mm up while a touching one as far out is
   * passed over, and a bunny lying on its side tipped onto it every few
   * steps and crept across the floor. A point kept last step counts
   * KEEP_FACTOR more. (Loops written out, no closures: this runs for every
   * cluster of every pair.)
   */
  /** span's scratch: its candidates' weights, offsets then areas (four times the weights' length), and indices. */
  private spanW = new Float64Array(0);
  private spanD = new Float64Array(0);
  private spanI = new Int32Array(0);
  private span(cs: ContactSet, lead: number, nm: number, nx: number, ny: number, nz: number, cell: number, touching: boolean): number {
    const mem = this.members, P = cs.p, ch = this.chosen, phi = this.faceFit ? this.smooth : cs.phi, gap = cs.gap;
    const minSpan = 1e-4 * cell * cell;
    const d0 = phi[lead]!;
    const deepLim = d0 + Math.max(TAKE_CELLS * cell, DEEP_FRACTION * Math.max(-d0, 0));
    const touchFrom = gap[lead]!;
    const touchBand = Math.max(deepLim - d0, 1e-12);
    const lx = P[3 * lead]!, ly = P[3 * lead + 1]!, lz = P[3 * lead + 2]!;
    let nch = 0;
    ch[nch++] = lead;
    // The candidates (every member but the leader within the depth limit),
    // each with its offset from the leader and its weight, once for the
    // three choices below.
    if (this.spanW.length < nm) {
      this.spanW = new Float64Array(2 * nm);
      // Offsets (3 a candidate), then areas (1): 4 per candidate.
      this.spanD = new Float64Array(8 * nm);
      this.spanI = new Int32Array(2 * nm);
    }
    const cw = this.spanW, cd = this.spanD, ci = this.spanI;
    let nc = 0;
    for (let m = 0; m < nm; m++) {
      const i = mem[m]!;
      if (i === lead || !(phi[i]! <= deepLim)) continue;
      const kept = this.isKept(i) ? KEEP_FACTOR : 1;
      ci[nc] = i;
      cw[nc] = touching ? kept * Math.max(0, Math.min(1, 1 - (gap[i]! - touchFrom) / touchBand)) : kept;
      cd[3 * nc] = P[3 * i]! - lx; cd[3 * nc + 1] = P[3 * i + 1]! - ly; cd[3 * nc + 2] = P[3 * i + 2]! - lz;
      nc++;
    }
    // 2: the farthest from the leader (tangent-plane distance: the normal part removed).
    let p1 = -1, best = minSpan;
    for (let c = 0; c < nc; c++) {
      const dx = cd[3 * c]!, dy = cd[3 * c + 1]!, dz = cd[3 * c + 2]!;
      const dn = dx * nx + dy * ny + dz * nz;
      const d = (dx * dx + dy * dy + dz * dz - dn * dn) * cw[c]!;
      if (d > best) { best = d; p1 = ci[c]!; }
    }
    if (p1 < 0) return nch;
    ch[nch++] = p1;
    // 3: the largest triangle with the first two (signed, about the normal).
    const ux = P[3 * p1]! - lx, uy = P[3 * p1 + 1]! - ly, uz = P[3 * p1 + 2]! - lz;
    let p2 = -1, a2 = 0;
    best = Math.sqrt(minSpan) * Math.sqrt(best);
    // Candidate c's area at cd[ar0 + c] (an offset, not a view: a view is an object a call).
    const ar0 = 3 * nc;
    for (let c = 0; c < nc; c++) {
      const i = ci[c]!;
      if (i === p1) continue;
      const vx = cd[3 * c]!, vy = cd[3 * c + 1]!, vz = cd[3 * c + 2]!;
      const area = nx * (uy * vz - uz * vy) + ny * (uz * vx - ux * vz) + nz * (ux * vy - uy * vx);
      cd[ar0 + c] = area;
      const ar = Math.abs(area) * cw[c]!;
      if (ar > best) { best = ar; p2 = i; a2 = area; }
    }
    if (p2 < 0) return nch;
    ch[nch++] = p2;
    // 4: the most area on the other side of the first edge.
    let p3 = -1, b3 = 0;
    for (let c = 0; c < nc; c++) {
      const i = ci[c]!;
      if (i === p1 || i === p2) continue;
      const ar = -Math.sign(a2) * cd[ar0 + c]! * cw[c]!;
      if (ar > b3) { b3 = ar; p3 = i; }
    }
    if (p3 >= 0 && b3 > 0.05 * Math.abs(a2)) ch[nch++] = p3;
    return nch;
  }

  /**
   * Whether the manifold being built (leader `lead`, the first `nch` chosen
   * points) is a curved patch against a plane: its points then stand where
   * the surfaces meet at the current poses, not at samples (SurfaceMeet).
   * A point is a sample taken at the predicted
   * pose and moved back by the centres' motion, so it keeps the turn the
   * body makes in the step, while its gap is the one its material point has
   * now; on a ball rolling at 20 rad/s at 100 Hz the two differ by
   * r (1 - cos w dt), 2 mm: the ball sat that far in the floor and rolled
   * over its vertices, losing 4 % of its speed a second. At the meeting
   * point the normal runs through a ball's centre, so its spin moves the
   * point along the floor, not into it: it rolls 0.9 s losing 0.03 %. The
   * gap and normal are read where they meet at the current poses, the
   * anchor where they meet half a step on (MEET_AHEAD).
   * Not between two meshes (but on a static body's flat face, as on a
   * plane): both fields' gradients are read a cell wide,
   * and on a ring's tube (3 cells) the point wandered, so that the
   * 60-ring pile no longer slept. Not on a face (three or more points at
   * one gap), whose corners hold it. Whether the bodies turn or not: the
   * surfaces meet where the fields' zero levels do, 0.2-0.3 mm above a
   * bunny's lowest samples against the floor, and a patch that took
   * meeting points only while its bodies turned (0.01 cells a step) changed
   * to samples and back at each end of a rocking swing: the push-out lifted
   * the body at one end and it fell back at the other, and a bunny
   * alone on the floor rocked on for seconds, its swing growing.
   */
  private meetsCurved(cs: ContactSet, lead: number, nch: number, cell: number): boolean {
    if (this.faceFit || this.meshPair) return false;
    if (nch >= 3) {
      let spread = 0;
      const g0 = cs.gap[lead]!, ch = this.chosen;
      for (let c = 0; c < nch; c++) spread = Math.max(spread, Math.abs(cs.gap[ch[c]!]! - g0));
      if (spread < FLAT_CELLS * cell) return false;
    }
    return true;
  }

  /** The direction of roll of the manifold being built (rollCentre), the centre's coordinate along it, and the depth its points take. */
  private readonly rollDir = new Float64Array(3);
  private rollAt = 0;
  private rollGap = 0;

  /**
   * For a curved manifold (meetsCurved) against a plane-like support: the
   * direction it rolls in (the relative spin crossed with the normal), the
   * centre of its members along it, weighted by how far each lies within
   * the band below the deepest (PatchBuilder.build's weights), and the
   * deepest member's gap. False when it does not roll.
   */
  private rollCentre(ctx: StepContext, cs: ContactSet, a: number, b: number, lead: number, nm: number,
    nx: number, ny: number, nz: number, cell: number): boolean {
    const W = ctx.bodies.angVel;
    const sa = ctx.invMass[a]! > 0 ? 1 : 0, sb = ctx.invMass[b]! > 0 ? 1 : 0;
    const wx = sa * W[3 * a]! - sb * W[3 * b]!, wy = sa * W[3 * a + 1]! - sb * W[3 * b + 1]!, wz = sa * W[3 * a + 2]! - sb * W[3 * b + 2]!;
    let dx = wy * nz - wz * ny, dy = wz * nx - wx * nz, dz = wx * ny - wy * nx;
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(l > 0)) return false;
    dx /= l; dy /= l; dz /= l;
    this.rollDir[0] = dx; this.rollDir[1] = dy; this.rollDir[2] = dz;
    const band = TAKE_CELLS * cell, limit = cs.phi[lead]! + band;
    let sw = 0, sx = 0, gap = Infinity, lo = Infinity, hi = -Infinity;
    const mem = this.members, P = cs.p, R = this.ownerRot;
    let rotOf = -1;
    for (let k = 0; k < nm; k++) {
      const i = mem[k]!;
      const f = cs.phi[i]!;
      if (cs.gap[i]! < gap) gap = cs.gap[i]!;
      if (!(f < limit)) continue;
      const wgt = (limit - f) / band;
      sw += wgt;
      sx += wgt * (P[3 * i]! * dx + P[3 * i + 1]! * dy + P[3 * i + 2]! * dz);
      // The owner's surface normal at the sample, along the roll: it turns
      // over the touching points only where the surface curves that way.
      const owner = cs.b1[i]!, smp = ctx.shapeOf(owner).samples, sn = smp.normals;
      if (!sn || !smp.creases) return false;
      // (Samples on creases the roll crosses say nothing of it: a box's
      // corners' normals lean apart along its edges. Those on creases it
      // runs along, a coarse tube's rings, turn with the surface.)
      if (onCreaseAt(smp.creases, 6 * cs.sample[i]!) && this.creasedAcrossRoll(ctx, cs, i, smp.creases)) continue;
      if (owner !== rotOf) { quatToMat3(ctx.bodies.quat, 4 * owner, R); rotOf = owner; }
      const o = 4 * cs.sample[i]!, ux = sn[o]!, uy = sn[o + 1]!, uz = sn[o + 2]!;
      const along = (R[0]! * ux + R[1]! * uy + R[2]! * uz) * dx + (R[3]! * ux + R[4]! * uy + R[5]! * uz) * dy + (R[6]! * ux + R[7]! * uy + R[8]! * uz) * dz;
      if (along < lo) lo = along;
      if (along > hi) hi = along;
    }
    if (!(sw > 0) || !(hi - lo > ROLL_CURVE_SIN)) return false;
    this.rollAt = sx / sw;
    this.rollGap = gap;
    return true;
  }

  /**
   * Whether the chosen points of the manifold being built roll along
   * creases: at least ROLL_CREASE_POINTS of them lie on creases the roll runs
   * along, and none on a crease it crosses. A lying cylinder's points all lie
   * on its rims; a ring stood on a tube of 12 segments touches with two of
   * the tube's rings of vertices and the facets between them. The creased
   * ones cannot meet the support where the surfaces do, and left where they
   * lie, the facets along the roll land in turn.
   */
  private rollsAlongCreases(ctx: StepContext, cs: ContactSet, nch: number): boolean {
    const ch = this.chosen;
    let along = 0;
    for (let c = 0; c < nch; c++) {
      const i = ch[c]!, creases = ctx.shapeOf(cs.b1[i]!).samples.creases;
      if (!creases) return false;
      if (!onCreaseAt(creases, 6 * cs.sample[i]!)) continue;
      if (this.creasedAcrossRoll(ctx, cs, i, creases)) return false;
      along++;
    }
    return along >= ROLL_CREASE_POINTS;
  }

  /**
   * Whether point i's sample lies on a crease the roll crosses (a box's edge
   * it tips over, a cylinder's rim it turns across), rather than one it runs
   * along (a lying cylinder's rim): its crease tensor (samples.ts
   * sampleCreases) read along the direction of roll (rollDir).
   */
  private creasedAcrossRoll(ctx: StepContext, cs: ContactSet, i: number, M: Float32Array): boolean {
    const o = 6 * cs.sample[i]!, owner = cs.b1[i]!, d = this.rollDir;
    const R = this.ownerRot;
    quatToMat3(ctx.bodies.quat, 4 * owner, R);
    // The direction in the owner's frame: R^T d.
    const ux = R[0]! * d[0]! + R[3]! * d[1]! + R[6]! * d[2]!, uy = R[1]! * d[0]! + R[4]! * d[1]! + R[7]! * d[2]!, uz = R[2]! * d[0]! + R[5]! * d[1]! + R[8]! * d[2]!;
    return creaseAlong(M, o, ux, uy, uz) > CREASE_ACROSS_ROLL;
  }
  private readonly ownerRot = new Float64Array(9);

  private activate(i: number): void {
    if (this.active[i]) return;
    this.active[i] = 1;
    this.activeList[this.activeCount++] = i;
  }

  private setDir(o: number, ko: number, dx: number, dy: number, dz: number,
    r1x: number, r1y: number, r1z: number, r2x: number, r2y: number, r2z: number,
    a: number, b: number, ima: number, imb: number, II: Float64Array): void {
    const j = this.jac;
    setRow(j, o, dx, dy, dz, r1x, r1y, r1z, r2x, r2y, r2z, a, b, II, ima, imb);
    // Each body's part of d^T K d: its inverse mass plus (r x d) . I^-1 (r x d).
    this.ka[ko] = ima + j[o + 3]! * j[o + 9]! + j[o + 4]! * j[o + 10]! + j[o + 5]! * j[o + 11]!;
    this.kb[ko] = imb + j[o + 6]! * j[o + 12]! + j[o + 7]! * j[o + 13]! + j[o + 8]! * j[o + 14]!;
  }

  private setAxis(o: number, ko: number, x: number, y: number, z: number, a: number, b: number, ima: number, imb: number, II: Float64Array): void {
    const j = this.ajac;
    j[o] = x; j[o + 1] = y; j[o + 2] = z;
    const ia = 9 * a, ib = 9 * b;
    const sa = ima !== 0 ? 1 : 0, sb = imb !== 0 ? 1 : 0;
    j[o + 3] = sa * (II[ia]! * x + II[ia + 1]! * y + II[ia + 2]! * z);
    j[o + 4] = sa * (II[ia + 3]! * x + II[ia + 4]! * y + II[ia + 5]! * z);
    j[o + 5] = sa * (II[ia + 6]! * x + II[ia + 7]! * y + II[ia + 8]! * z);
    j[o + 6] = sb * (II[ib]! * x + II[ib + 1]! * y + II[ib + 2]! * z);
    j[o + 7] = sb * (II[ib + 3]! * x + II[ib + 4]! * y + II[ib + 5]! * z);
    j[o + 8] = sb * (II[ib + 6]! * x + II[ib + 7]! * y + II[ib + 8]! * z);
    this.aka[ko] = x * j[o + 3]! + y * j[o + 4]! + z * j[o + 5]!;
    this.akb[ko] = x * j[o + 6]! + y * j[o + 7]! + z * j[o + 8]!;
  }

  // ------------------------------------------------------------ the store

  /**
   * Sets aside the store's entries and manifolds of dormant pairs: both
   * bodies asleep, or one asleep and the other static. While its island
   * sleeps such a pair is out of the pair list, so no manifold of this step
   * has it, and store() would drop it.
   */
  private carryDormant(isStatic: Uint8Array, asleep: Uint8Array): void {
    const dormant = dormantPair(isStatic, asleep);
    const P = this.points, C = this.carry;
    C.reserve(P.count);
    let n = 0;
    for (let e = 0; e < P.count; e++) {
      if (dormant(P.a[e]!, P.b[e]!)) C.copyFrom(n++, P, e);
    }
    // (A subsequence of sorted entries: already in order.)
    C.count = n;
    if (this.cmA.length < this.smCount) growColumns(this, CARRY_MANIFOLD_COLUMNS, 2 * this.smCount + 16);
    let m = 0;
    for (let z = 0; z < this.smCount; z++) {
      if (!dormant(this.smA[z]!, this.smB[z]!)) continue;
      this.cmA[m] = this.smA[z]!;
      this.cmB[m] = this.smB[z]!;
      for (let q = 0; q < SM; q++) this.cmData[SM * m + q] = this.smData[SM * z + q]!;
      m++;
    }
    this.carrySm = m;
  }

  /**
   * A step without manifolds (everything asleep, or nothing touching): the
   * store keeps its dormant pairs' entries and manifolds where they are,
   * without the copy aside (a sleeping heap's whole store, every step).
   */
  private keepDormant(isStatic: Uint8Array, asleep: Uint8Array): void {
    const dormant = dormantPair(isStatic, asleep);
    const P = this.points;
    let n = 0;
    for (let e = 0; e < P.count; e++) {
      if (!dormant(P.a[e]!, P.b[e]!)) continue;
      if (n !== e) P.copyFrom(n, P, e);
      n++;
    }
    P.count = n;
    let m = 0;
    for (let z = 0; z < this.smCount; z++) {
      if (!dormant(this.smA[z]!, this.smB[z]!)) continue;
      if (m !== z) {
        this.smA[m] = this.smA[z]!;
        this.smB[m] = this.smB[z]!;
        this.smData.copyWithin(SM * m, SM * z, SM * z + SM);
      }
      m++;
    }
    this.smCount = m;
  }

  /**
   * Keeps this step's impulses for the next, in canonical pair order and key
   * order within a pair, the dormant pairs' set aside (carryDormant) among them.
   */
  private store(): void {
    // Points are laid out in solve order (pairs by level); the store wants
    // canonical order. Sort manifolds by pair index (canonical), stable.
    const mc = this.mcount;
    const ord = this.sortScratch(mc);
    for (let m = 0; m < mc; m++) ord[m] = m;
    const mp = this.mPair;
    ord.subarray(0, mc).sort((x, y) => mp[x]! - mp[y]! || x - y);
    const n = this.count;
    const points = this.points, C = this.carry;
    points.reserve(n + C.count);
    if (this.smA.length < mc + this.carrySm) growColumns(this, STORE_MANIFOLD_COLUMNS, 2 * (mc + this.carrySm) + 16);
    // The points in pair order (each pair's run sorted by key on commit),
    // the dormant pairs' merged in (no pair of this step's is dormant).
    let at = 0, c = 0;
    const jac = this.jac;
    for (let z = 0; z < mc; z++) {
      const m = ord[z]!;
      const r0 = this.mStart[m]!, a0 = this.pa[r0]!, b0 = this.pb[r0]!;
      for (; c < C.count && (C.a[c]! < a0 || (C.a[c] === a0 && C.b[c]! < b0)); c++) points.copyFrom(at++, C, c);
      for (let r = this.mStart[m]!; r < this.mEnd[m]!; r++) {
        const base = JAC * r;
        const l1 = this.lam[3 * r + 1]!, l2 = this.lam[3 * r + 2]!;
        points.set(at++, this.pa[r]!, this.pb[r]!, this.pkey[r]!, this.lam[3 * r]!,
          l1 * jac[base + DIR]! + l2 * jac[base + 2 * DIR]!,
          l1 * jac[base + DIR + 1]! + l2 * jac[base + 2 * DIR + 1]!,
          l1 * jac[base + DIR + 2]! + l2 * jac[base + 2 * DIR + 2]!, 0);
      }
    }
    for (; c < C.count; c++) points.copyFrom(at++, C, c);
    points.commit(at);
    // The manifolds likewise.
    let w = 0, cm = 0;
    const d = this.smData;
    for (let y = 0; y <= mc; y++) {
      const m = y < mc ? ord[y]! : -1;
      const r0 = m >= 0 ? this.mStart[m]! : 0;
      const a0 = m >= 0 ? this.pa[r0]! : Infinity, b0 = m >= 0 ? this.pb[r0]! : Infinity;
      for (; cm < this.carrySm && (this.cmA[cm]! < a0 || (this.cmA[cm] === a0 && this.cmB[cm]! < b0)); cm++, w++) {
        this.smA[w] = this.cmA[cm]!;
        this.smB[w] = this.cmB[cm]!;
        for (let q = 0; q < SM; q++) d[SM * w + q] = this.cmData[SM * cm + q]!;
      }
      if (m < 0) break;
      const z = w++;
      this.smA[z] = a0;
      this.smB[z] = b0;
      const o = AJAC * m;
      d[SM * z] = this.ajac[o]!; d[SM * z + 1] = this.ajac[o + 1]!; d[SM * z + 2] = this.ajac[o + 2]!;
      let jx = 0, jy = 0, jz = 0;
      for (let a = 0; a < 3; a++) {
        const l = this.alam[3 * m + a]!, ao = o + ADIR * a;
        jx += l * this.ajac[ao]!; jy += l * this.ajac[ao + 1]!; jz += l * this.ajac[ao + 2]!;
      }
      d[SM * z + 3] = jx; d[SM * z + 4] = jy; d[SM * z + 5] = jz;
      let total = 0;
      for (let r = r0; r < this.mEnd[m]!; r++) total += this.lam[3 * r]!;
      d[SM * z + 6] = total;
      d[SM * z + 7] = this.mClamp[m] && this.mMuS[m]! > this.mMu[m]! && this.slips(m) ? 1 : 0;
    }
    this.smCount = w;
  }

  private sortBuf = new Int32Array(64);
  /**
   * Whether manifold m's surfaces slip at the end of the step (final
   * velocities) so that it breaks loose: at any point faster than
   * SLIP_SPEED, and either no slower than at the last substep's start (the
   * static cone, with the normal impulses built up, could not slow it) or
   * faster than |g| dt (a slide, not a creep the static cone is stopping).
   * A new contact's first substeps' soft normal impulses fall short of the
   * load while friction must stop the whole slip, so its rows end the step
   * on their cones: two cubes at rest, stacked on a slope 3 degrees below
   * atan mu_s, crept at their cone after it and, judged sliding on that
   * alone, slid off on mu_d (3.8 m in 2 s; docs/DESIGN.md 6 for 2 degrees).
   */
  private slips(m: number): boolean {
    const u = this.slip(m);
    if (!(u > SLIP_SPEED)) return false;
    if (u > this.slipScale) return true;
    // Only on the cone the normal impulses have reached: a load still
    // arriving (LOAD_SETTLED) is not yet the one the slip is judged against.
    const n = this.load(m);
    return u >= this.mSlip0[m]! && Math.abs(n - this.mLoad0[m]!) <= LOAD_SETTLED * n;
  }

  /** Manifold m's normal impulse, summed over its points. */
  private load(m: number): number {
    let n = 0;
    for (let r = this.mStart[m]!; r < this.mEnd[m]!; r++) n += this.lam[3 * r]!;
    return n;
  }

  /** Manifold m's largest slip speed at its points (m/s) at the bodies' velocities now. */
  private slip(m: number): number {
    const v = this.velRef, w = this.angRef;
    if (!v || !w) return 0;
    let most = 0;
    for (let r = this.mStart[m]!; r < this.mEnd[m]!; r++) {
      const a = this.pa[r]!, b = this.pb[r]!, base = JAC * r;
      const u1 = rowVel(this.jac, base + DIR, v, w, a, b), u2 = rowVel(this.jac, base + 2 * DIR, v, w, a, b);
      const u = u1 * u1 + u2 * u2;
      if (u > most) most = u;
    }
    return Math.sqrt(most);
  }
  private velRef: Float64Array | null = null;
  private angRef: Float64Array | null = null;

  private sortScratch(n: number): Int32Array {
    if (this.sortBuf.length < n) this.sortBuf = new Int32Array(2 * n);
    return this.sortBuf;
  }

  // ------------------------------------------------------------ storage

  private sizeBodies(n: number): void {
    if (this.active.length === n) return;
    sizeColumns(this, BODY_COLUMNS, n);
    this.scale.fill(1);
    this.sets = new DisjointSets(n);
  }

  private ensurePoints(n: number): void {
    if (n <= this.cap) return;
    this.cap = Math.max(64, 2 * n);
    growColumns(this, POINT_COLUMNS, this.cap);
  }

  private ensureManifolds(n: number): void {
    if (n <= this.mcap) return;
    this.mcap = Math.max(32, 2 * n);
    growColumns(this, MANIFOLD_COLUMNS, this.mcap);
  }
}

/**
 * A face's fitted gaps may lift a point above its own gap by at most this
 * many cells; a fit that lifts one more is lowered until it lifts none. A
 * box's rim sample reads the field rounded there (1.5 mm, about 0.03 cells,
 * deeper than the face), which the fit is for; but a ring lying on a ring
 * meets it along a circle whose points are coplanar while their gaps are
 * not (7 mm deep at two places, clear elsewhere: the fit lifts ring-on-ring
 * points by 0.16 cells at the median, a box heap's by 0.001), and the plane
 * through those gaps said the ring barely touched: it sank, the next step it
 * was no longer a face and pushed out, and a stack of 20 bounced at
 * 0.1 m/s for ever.
 */
const FIT_RAISE_CELLS = 0.1;
/** A fitted plane replaces the field's mean normal only within ~18 degrees of it. */
const FIT_COS = 0.95;
/** ...and only when the points are this much thinner across the plane than along its narrower side. */
const FIT_THIN = 0.05;

/**
 * The unit normal of the plane through the points P[3 idx[k]..] (k < n),
 * oriented like (mx, my, mz), into out; false where the points do not make
 * a plane (they lie on a line, or bulge: a curved patch keeps the field's
 * mean normal) or the fit leans more than FIT_COS off the field's.
 */
function planeNormal(P: Float64Array, idx: Int32Array, n: number, mx: number, my: number, mz: number, out: Float64Array): boolean {
  let cx = 0, cy = 0, cz = 0;
  for (let k = 0; k < n; k++) { const i = 3 * idx[k]!; cx += P[i]!; cy += P[i + 1]!; cz += P[i + 2]!; }
  cx /= n; cy /= n; cz /= n;
  let xx = 0, xy = 0, xz = 0, yy = 0, yz = 0, zz = 0;
  for (let k = 0; k < n; k++) {
    const i = 3 * idx[k]!;
    const dx = P[i]! - cx, dy = P[i + 1]! - cy, dz = P[i + 2]! - cz;
    xx += dx * dx; xy += dx * dy; xz += dx * dz; yy += dy * dy; yz += dy * dz; zz += dz * dz;
  }
  // Eigenvalues of the symmetric 3x3 (trigonometric form), smallest last.
  const q = (xx + yy + zz) / 3;
  const p1 = xy * xy + xz * xz + yz * yz;
  const a = xx - q, b = yy - q, c = zz - q;
  const p2 = a * a + b * b + c * c + 2 * p1;
  if (!(p2 > 0)) return false;
  const pp = Math.sqrt(p2 / 6);
  const detC = (a * (b * c - yz * yz) - xy * (xy * c - yz * xz) + xz * (xy * yz - b * xz)) / (pp * pp * pp);
  const r = Math.max(-1, Math.min(1, detC / 2));
  const phi = det.acos(r) / 3;
  const e1 = q + 2 * pp * det.cos(phi);
  const e3 = q + 2 * pp * det.cos(phi + (2 * Math.PI) / 3);
  const e2 = 3 * q - e1 - e3;
  if (!(e2 > 0) || !(Math.max(e3, 0) <= FIT_THIN * FIT_THIN * e2)) return false;
  // Eigenvector of e3: the largest cross product of two rows of C - e3 I.
  const r0x = xx - e3, r0y = xy, r0z = xz;
  const r1x = xy, r1y = yy - e3, r1z = yz;
  const r2x = xz, r2y = yz, r2z = zz - e3;
  const ax = r0y * r1z - r0z * r1y, ay = r0z * r1x - r0x * r1z, az = r0x * r1y - r0y * r1x;
  const bx = r0y * r2z - r0z * r2y, by = r0z * r2x - r0x * r2z, bz = r0x * r2y - r0y * r2x;
  const ux = r1y * r2z - r1z * r2y, uy = r1z * r2x - r1x * r2z, uz = r1x * r2y - r1y * r2x;
  const la = ax * ax + ay * ay + az * az, lb = bx * bx + by * by + bz * bz, lu = ux * ux + uy * uy + uz * uz;
  let nx = ax, ny = ay, nz = az, l = la;
  if (lb > l) { nx = bx; ny = by; nz = bz; l = lb; }
  if (lu > l) { nx = ux; ny = uy; nz = uz; l = lu; }
  if (!(l > 0)) return false;
  l = Math.sqrt(l);
  nx /= l; ny /= l; nz /= l;
  let d = nx * mx + ny * my + nz * mz;
  if (d < 0) { nx = -nx; ny = -ny; nz = -nz; d = -d; }
  if (d < FIT_COS) return false;
  out[0] = nx; out[1] = ny; out[2] = nz;
  return true;
}

interface Soft { biasRate: number; massScale: number; impulseScale: number }

/** Soft constraint coefficients for stiffness `hz` and damping ratio `zeta` at substep h (Catto's soft step). */
function softness(hz: number, zeta: number, h: number): Soft {
  if (hz === 0) return { biasRate: 0, massScale: 1, impulseScale: 0 };
  const omega = 2 * Math.PI * hz;
  const a1 = 2 * zeta + h * omega;
  const a2 = h * omega * a1;
  const a3 = 1 / (1 + a2);
  return { biasRate: omega / a1, massScale: a2 * a3, impulseScale: a3 };
}

/** 1 / (s_a k_a + s_b k_b), or 0 when nothing can move. */
function effMass(ka: number, kb: number, sa: number, sb: number): number {
  const q = sa * ka + sb * kb;
  return q > 0 ? 1 / q : 0;
}

/** The running solver's per-body flags: 1 once an impulse reached the body in this step (set by solve). */
let touchedNow: Uint8Array = new Uint8Array(0);

/**
 * The impulse applyScaled applies: passed in this slot, not as an argument,
 * since a call the optimiser does not inline (the passes are too large for
 * its budget) boxes each floating-point argument on the heap: 30 of the
 * 150 MB a 60-ring landing allocated in 39 steps.
 */
const IMPULSE = new Float64Array(1);

/**
 * The impulse IMPULSE[0] along the row at o (contactRows.ts applyRow,
 * written out: the solver's hottest call, which the optimiser left a call),
 * each body's share scaled by sc, marking both bodies touched.
 */
function applyScaled(j: Float64Array, o: number, v: Float64Array, w: Float64Array, im: Float64Array, sc: Float64Array, a: number, b: number): void {
  const lam = IMPULSE[0]!;
  const fa = sc[a]!, fb = sc[b]!;
  const ia = im[a]! * lam * fa, ib = im[b]! * lam * fb;
  const a3 = 3 * a, b3 = 3 * b;
  v[a3] += ia * j[o]!;
  v[a3 + 1] += ia * j[o + 1]!;
  v[a3 + 2] += ia * j[o + 2]!;
  v[b3] -= ib * j[o]!;
  v[b3 + 1] -= ib * j[o + 1]!;
  v[b3 + 2] -= ib * j[o + 2]!;
  const la = lam * fa, lb = lam * fb;
  w[a3] += la * j[o + 9]!;
  w[a3 + 1] += la * j[o + 10]!;
  w[a3 + 2] += la * j[o + 11]!;
  w[b3] -= lb * j[o + 12]!;
  w[b3 + 1] -= lb * j[o + 13]!;
  w[b3 + 2] -= lb * j[o + 14]!;
  touchedNow[a] = 1;
  touchedNow[b] = 1;
}

/** Angular impulse IMPULSE[0] about the axis at o, equal and opposite (each body's share scaled as in applyScaled). */
function applyAngular(j: Float64Array, o: number, w: Float64Array, sc: Float64Array, a: number, b: number): void {
  const lam = IMPULSE[0]!;
  const la = lam * sc[a]!, lb = lam * sc[b]!;
  w[3 * a] += la * j[o + 3]!;
  w[3 * a + 1] += la * j[o + 4]!;
  w[3 * a + 2] += la * j[o + 5]!;
  w[3 * b] -= lb * j[o + 6]!;
  w[3 * b + 1] -= lb * j[o + 7]!;
  w[3 * b + 2] -= lb * j[o + 8]!;
  touchedNow[a] = 1;
  touchedNow[b] = 1;
}
