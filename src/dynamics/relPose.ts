/**
 * The relative pose of a pair of bodies, as the narrow phase uses it: A's
 * frame in B's (quaternion q, translation t and rotation matrix R) and B's
 * frame in A's (translation u; its rotation is R transposed), set from the
 * bodies' poses or interpolated between two relative poses (the sweep's poses
 * along a step's motion), and stored as a pair's reference pose.
 */

/** Relative poses of one pair: A in B (q, t, R) and B in A (t; R is R_AB transposed). */
export class RelPose {
  qx = 0; qy = 0; qz = 0; qw = 1;
  tx = 0; ty = 0; tz = 0;
  /** B in A: translation. */
  ux = 0; uy = 0; uz = 0;
  readonly R = new Float64Array(9);

  /** A's frame in B's frame from poses (pos, quat) of bodies a and b. */
  set(pos: Float64Array, quat: Float64Array, a: number, b: number): void {
    const bx = -quat[4 * b]!, by = -quat[4 * b + 1]!, bz = -quat[4 * b + 2]!, bw = quat[4 * b + 3]!;
    const ax = quat[4 * a]!, ay = quat[4 * a + 1]!, az = quat[4 * a + 2]!, aw = quat[4 * a + 3]!;
    // q = conj(qB) qA
    this.setQuat(
      bw * ax + bx * aw + by * az - bz * ay,
      bw * ay - bx * az + by * aw + bz * ax,
      bw * az + bx * ay - by * ax + bz * aw,
      bw * aw - bx * ax - by * ay - bz * az,
    );
    // t = R_B^T (x_A - x_B), with R_B from qB (un-conjugated).
    const dx = pos[3 * a]! - pos[3 * b]!, dy = pos[3 * a + 1]! - pos[3 * b + 1]!, dz = pos[3 * a + 2]! - pos[3 * b + 2]!;
    rotateConj(-bx, -by, -bz, bw, dx, dy, dz, this);
    this.finishInverse();
  }

  /** Interpolates between two relative poses (translation linear, rotation nlerp) at u in [0, 1]. */
  lerp(p: RelPose, q: RelPose, u: number): void {
    // The shorter way round: q and -q are the same rotation.
    const s = p.qx * q.qx + p.qy * q.qy + p.qz * q.qz + p.qw * q.qw < 0 ? -1 : 1;
    const x = p.qx + u * (s * q.qx - p.qx), y = p.qy + u * (s * q.qy - p.qy), z = p.qz + u * (s * q.qz - p.qz), w = p.qw + u * (s * q.qw - p.qw);
    const l = Math.sqrt(x * x + y * y + z * z + w * w);
    this.setQuat(x / l, y / l, z / l, w / l);
    this.tx = p.tx + u * (q.tx - p.tx);
    this.ty = p.ty + u * (q.ty - p.ty);
    this.tz = p.tz + u * (q.tz - p.tz);
    this.finishInverse();
  }

  /** Stores A in B (q, then t: REF_STRIDE floats, pairs.ts) at r[o..], as a pair's reference pose. */
  store(r: Float64Array, o: number): void {
    r[o] = this.qx; r[o + 1] = this.qy; r[o + 2] = this.qz; r[o + 3] = this.qw;
    r[o + 4] = this.tx; r[o + 5] = this.ty; r[o + 6] = this.tz;
  }

  private setQuat(x: number, y: number, z: number, w: number): void {
    this.qx = x; this.qy = y; this.qz = z; this.qw = w;
    const R = this.R;
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - z * w); R[2] = 2 * (x * z + y * w);
    R[3] = 2 * (x * y + z * w); R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - x * w);
    R[6] = 2 * (x * z - y * w); R[7] = 2 * (y * z + x * w); R[8] = 1 - 2 * (x * x + y * y);
  }

  /** u = -R^T t. */
  private finishInverse(): void {
    const R = this.R, t0 = this.tx, t1 = this.ty, t2 = this.tz;
    this.ux = -(R[0]! * t0 + R[3]! * t1 + R[6]! * t2);
    this.uy = -(R[1]! * t0 + R[4]! * t1 + R[7]! * t2);
    this.uz = -(R[2]! * t0 + R[5]! * t1 + R[8]! * t2);
  }
}

/** Writes R(q)^T v into out.tx/ty/tz for the unit quaternion (x, y, z, w). */
function rotateConj(x: number, y: number, z: number, w: number, vx: number, vy: number, vz: number, out: RelPose): void {
  // Rotation by the conjugate: v + 2w' (u' x v) + 2 u' x (u' x v), u' = -u.
  const ux = -x, uy = -y, uz = -z;
  const cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
  out.tx = vx + 2 * (w * cx + uy * cz - uz * cy);
  out.ty = vy + 2 * (w * cy + uz * cx - ux * cz);
  out.tz = vz + 2 * (w * cz + ux * cy - uy * cx);
}
