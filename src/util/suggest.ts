/**
 * "Did you mean ...?" for scene files: unknown keys, shape and body names,
 * enum values. A typo must not pass silently, and the message should point at
 * the fix, so we rank candidates by edit distance.
 */
import { quote } from './echo.ts';

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent
 * transpositions), so "rnig" -> "ring" counts as one edit, not two. Two rolling
 * rows plus the one before them; the strings are short (keys, names).
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = new Array<number>(n + 1);
  let cur = new Array<number>(n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      const cost = ai === bj ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        d = Math.min(d, prev2[j - 2]! + 1);
      }
      cur[j] = d;
    }
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[n]!;
}

/**
 * Suggestions are for typos, so the work they may cost is capped by length
 * (a scene file's unknown key can be 50 MB long): a word or candidate longer
 * than this is never compared, and one whose length differs from the word's
 * by more than the edits allowed is skipped without computing the distance.
 */
export const SUGGEST_MAX_LENGTH = 256;
/** Cells of the edit-distance tables one suggestion may fill (a few milliseconds); candidates after it are not compared. */
export const SUGGEST_MAX_WORK = 4_000_000;

/**
 * The candidate closest to `word`, or undefined when none is close enough to
 * be a plausible typo. Case is ignored ("Friction" -> "friction"); allowed
 * distance grows with length (1 edit for short words, about a third of the
 * length for long ones); a word of 3+ letters that starts a candidate also
 * counts ("orient" -> "orientation"). The work is capped (SUGGEST_MAX_LENGTH,
 * SUGGEST_MAX_WORK): a huge word gets no suggestion, at once.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > SUGGEST_MAX_LENGTH) return undefined;
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  let prefixMatch: string | undefined;
  let work = 0;
  for (const c of candidates) {
    if (c.length > SUGGEST_MAX_LENGTH) continue;
    const lc = c.toLowerCase();
    if (prefixMatch === undefined && w.length >= 3 && lc.startsWith(w)) prefixMatch = c;
    const limit = Math.max(1, Math.floor(Math.max(w.length, lc.length) / 3));
    // The distance is at least the difference in length.
    if (Math.abs(w.length - lc.length) > limit) continue;
    work += (w.length + 1) * (lc.length + 1);
    if (work > SUGGEST_MAX_WORK) break;
    const d = editDistance(w, lc);
    // Never "correct" a word into something it shares nothing with ("ab" -> "cd").
    if (d <= limit && d < Math.max(w.length, lc.length) && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best ?? prefixMatch;
}

/** ` (did you mean "x"?)`, or the empty string when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const m = closestMatch(word, candidates);
  return m === undefined ? '' : ` (did you mean ${quote(m)}?)`;
}

/** "a, b, c" for messages, cut after `max` entries so a 1000-body scene does not flood the terminal. */
export function listChoices(choices: readonly string[], max = 20): string {
  const shown = choices.slice(0, max).map(plainOrQuoted).join(', ');
  return choices.length <= max ? shown : `${shown}, ... (${choices.length - max} more)`;
}

/** A name as it is when it is plain (letters, digits, a few marks, short), else quoted and escaped (src/util/echo.ts). */
function plainOrQuoted(name: string): string {
  return /^[\p{L}\p{N}_.+\-]{1,40}$/u.test(name) ? name : quote(name);
}
