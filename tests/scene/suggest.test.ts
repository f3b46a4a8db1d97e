import { describe, expect, test } from 'vitest';
import { closestMatch, didYouMean, editDistance, listChoices } from '../../src/util/suggest.ts';

describe('editDistance', () => {
  test('counts insertions, deletions and substitutions like Levenshtein', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('frction', 'friction')).toBe(1);
    expect(editDistance('same', 'same')).toBe(0);
  });

  test('counts an adjacent transposition as one edit', () => {
    expect(editDistance('rnig', 'ring')).toBe(1);
    expect(editDistance('denisty', 'density')).toBe(1);
  });

  test('is symmetric', () => {
    const words = ['ring', 'rnig', 'friction', 'frction', 'angularVelocity', 'x', ''];
    for (const a of words) for (const b of words) expect(editDistance(a, b)).toBe(editDistance(b, a));
  });
});

describe('closestMatch', () => {
  const bodyKeys = ['name', 'shape', 'static', 'position', 'orientation', 'rotation', 'velocity', 'friction', 'mass', 'density'];

  test('suggests the nearest key for a one-letter typo', () => {
    expect(closestMatch('frction', bodyKeys)).toBe('friction');
    expect(closestMatch('shpe', bodyKeys)).toBe('shape');
    expect(closestMatch('mas', bodyKeys)).toBe('mass');
  });

  test('ignores case', () => {
    expect(closestMatch('Friction', bodyKeys)).toBe('friction');
  });

  test('accepts a prefix of three or more letters', () => {
    expect(closestMatch('orient', bodyKeys)).toBe('orientation');
  });

  test('suggests nothing for an unrelated word', () => {
    expect(closestMatch('banana', bodyKeys)).toBeUndefined();
    expect(closestMatch('ab', ['cd', 'ef'])).toBeUndefined();
  });

  test('didYouMean formats the hint or returns nothing', () => {
    expect(didYouMean('rnig', ['ring', 'peg'])).toBe(' (did you mean "ring"?)');
    expect(didYouMean('zzzzzz', ['ring', 'peg'])).toBe('');
  });

  test('listChoices cuts long lists and says how many were left out', () => {
    expect(listChoices(['a', 'b'])).toBe('a, b');
    const many = Array.from({ length: 25 }, (_, i) => `b${i}`);
    expect(listChoices(many)).toMatch(/^b0, b1, .*b19, \.\.\. \(5 more\)$/);
  });
});
