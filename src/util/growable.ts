/**
 * Growing typed arrays. Solver scratch is sized once and only grows (so a
 * warm step allocates nothing); every class that keeps per-pair or
 * per-contact arrays grows them through this one helper.
 */
type Typed = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array;

/**
 * `a` if it holds at least `n` elements, else a larger array of the same type
 * (at least twice the old length) with the old contents copied in.
 */
export function grown<T extends Typed>(a: T, n: number): T {
  if (a.length >= n) return a;
  const b = new (a.constructor as new (len: number) => T)(Math.max(n, 2 * a.length, 16));
  b.set(a);
  return b;
}
