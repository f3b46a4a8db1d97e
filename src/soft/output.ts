/**
 * Soft bodies in `stackfield run`'s state lines: per soft body its name, its
 * centre of mass and the volume its drawn surface encloses over its rest
 * volume; with `--particles`, every particle's position too (x, y, z, flat).
 */
import type { World } from '../dynamics/world.ts';
import { SoftCoupling } from './coupling.ts';

export interface SoftStateJson {
  name: string;
  /** Centre of mass (world). */
  c: number[];
  /** Enclosed volume / rest volume. */
  volume: number;
  /** Particle positions, 3 per particle (only with particles = true). */
  x?: number[];
}

/** The soft bodies' part of a state line, or null when the world has none. */
export function softStateJson(world: World, particles: boolean, round: (x: number) => number = (x) => x): SoftStateJson[] | null {
  const soft = world.soft;
  if (!(soft instanceof SoftCoupling)) return null;
  const sys = soft.system;
  return sys.bodies.map((b, i) => {
    const out: SoftStateJson = { name: b.name, c: sys.centroid(i).map(round), volume: round(sys.volumeOf(i) / b.restVolume) };
    if (particles) out.x = Array.from(sys.pos.subarray(3 * b.particleStart, 3 * (b.particleStart + b.particleCount)), round);
    return out;
  });
}
