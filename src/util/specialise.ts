/**
 * Hot loops compiled for one set of arrays.
 *
 * V8 specialises a closure's optimised code on the values it closes over
 * when that code belongs to that closure alone; typed arrays it closes over
 * then become constants of the compiled loop (their length and base pointer
 * folded in). A factory `(arrays...) => (args...) => { loop }` compiled once
 * and called for many stores shares one piece of code among their closures,
 * which is not specialised. specialisedCopy compiles the factory afresh from
 * its own source, so each store's closure gets code of its own (docs/DESIGN.md
 * 4, "Code compiled for one store's arrays").
 *
 * The factory must refer to nothing outside itself but globals such as Math:
 * its copy is made with `new Function` from its parameter list and body. Where
 * strings cannot become code (a page whose Content-Security-Policy forbids
 * it) or where a copy does not give the factory's numbers (a tool rewrote the
 * source), the factory itself is returned: the same numbers, only slower.
 */

/** Per factory: whether its copies work here (null: not yet checked). */
const works = new WeakMap<Function, boolean>();
/** Copies compiled so far; numbers each copy's source. */
let copies = 0;

/**
 * A freshly compiled copy of `factory`, or `factory` itself where copies do
 * not work. `agrees(copy)` is asked once per factory, on a copy of its own,
 * whether the copy computes what the factory does (compare with Object.is).
 */
export function specialisedCopy<F extends (...args: never[]) => unknown>(factory: F, agrees: (copy: F) => boolean): F {
  let ok = works.get(factory);
  if (ok === undefined) {
    // (The check runs on a copy of its own: a copy bound to a second set of
    // arrays is no longer specialised on the first.)
    const probe = compiledCopy(factory);
    ok = probe !== null && safely(() => agrees(probe));
    works.set(factory, ok);
  }
  return (ok && compiledCopy(factory)) || factory;
}

function safely(f: () => boolean): boolean {
  try {
    return f();
  } catch {
    return false;
  }
}

/** A new compilation of `factory` from its source: the same parameter list and body, or null where that is not allowed. */
function compiledCopy<F extends (...args: never[]) => unknown>(factory: F): F | null {
  try {
    const src = factory.toString();
    const open = src.indexOf('('), close = src.indexOf(')', open);
    if (!src.startsWith('function') || open < 0 || close < 0) return null;
    const params = src.slice(open + 1, close).split(',').map((p) => p.trim()).filter((p) => p.length > 0);
    // A numbered comment makes each copy's source its own: V8 caches what it
    // compiles from a string by the string, and a copy that shared its code
    // with an earlier one would no longer be specialised on its own arrays.
    const body = `${src.slice(src.indexOf('{', close) + 1, src.lastIndexOf('}'))}\n// copy ${++copies}`;
    return new Function(...params, body) as F;
  } catch {
    return null;
  }
}
