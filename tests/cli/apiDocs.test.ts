/**
 * docs/api/README.md is generated from src/index.ts's TSDoc comments
 * (scripts/api-docs.ts); this keeps the committed file in step with the code,
 * and checks that every function of the API is documented.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_DOC, generateApiDoc } from '../../scripts/api-docs.ts';

describe('the API reference', () => {
  it('is up to date with the comments of src/index.ts (npm run docs:api rewrites it)', () => {
    const text = generateApiDoc();
    expect(readFileSync(API_DOC, 'utf8')).toBe(text);
    for (const name of ['loadScene', 'createWorld', 'switchBackend', 'bodyPose', 'bakeSdf', 'createBackend', 'World']) {
      const section = text.split(`### ${name}\n`)[1]?.split('\n### ')[0] ?? '';
      expect(section, name).toMatch(/```ts\n.+\n```\n\n\S/); // a signature, then prose
    }
  }, 120_000);
});
