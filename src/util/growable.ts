/**
 * Growing typed arrays and column stores. Solver scratch is sized once and
 * only grows (so a warm step allocates nothing); every class that keeps
 * per-pair, per-contact or per-body arrays sizes them through these helpers.
 *
 * A column store is an object whose typed-array fields are columns of one
 * table, row i of a column of stride s at [s i, s i + s). Its layout
 * (`Columns`) names each column once with its stride; the helpers grow,
 * clear, size and swap all the columns of a layout together.
 */
type Typed = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array | Int8Array;

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

/** A column store's layout: each column's field name and the elements one row takes in it. */
export type Columns<K extends string> = Readonly<Record<K, number>>;

/** The columns of a store, as the helpers see them (the store's other fields are its own). */
type Store<K extends string> = Record<NoInfer<K>, Typed>;

/** Grows every column of the layout to hold at least `rows` rows (grown: contents kept). */
export function growColumns<K extends string>(store: Store<K>, columns: Columns<K>, rows: number): void {
  for (const k in columns) store[k] = grown(store[k], columns[k] * rows);
}

/** growColumns, then zeroes the first `rows` rows of every column. */
export function clearColumns<K extends string>(store: Store<K>, columns: Columns<K>, rows: number): void {
  for (const k in columns) {
    const n = columns[k] * rows;
    store[k] = grown(store[k], n);
    store[k].fill(0, 0, n);
  }
}

/** New columns of exactly `rows` rows, zeroed (what the store held is dropped). */
export function sizeColumns<K extends string>(store: Store<K>, columns: Columns<K>, rows: number): void {
  for (const k in columns) store[k] = new (store[k].constructor as new (len: number) => Typed)(columns[k] * rows);
}

/** Swaps the columns of the layout between two stores. */
export function swapColumns<K extends string>(a: Store<K>, b: Store<K>, columns: Columns<K>): void {
  for (const k in columns) {
    const t = a[k];
    a[k] = b[k];
    b[k] = t;
  }
}
