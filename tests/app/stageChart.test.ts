import { describe, expect, it } from 'vitest';
import { axisLabels, chartScale } from '../../src/app/stageChart.ts';

describe('the stage chart\'s scale', () => {
  it('rounds the tallest step up to 1, 2 or 5 times a power of ten, never below 0.1 ms', () => {
    expect(chartScale(0)).toBeCloseTo(0.1, 12);
    expect(chartScale(0.07)).toBeCloseTo(0.1, 12);
    expect(chartScale(0.11)).toBeCloseTo(0.2, 12);
    expect(chartScale(1.2)).toBe(2);
    expect(chartScale(2)).toBe(2);
    expect(chartScale(3)).toBe(5);
    expect(chartScale(5.01)).toBe(10);
    expect(chartScale(8000)).toBe(10_000);
    expect(chartScale(40_000)).toBe(50_000);
  });

  it('labels its grid lines in milliseconds without float noise', () => {
    expect(axisLabels(0.1)).toEqual(['0 ms', '0.05 ms', '0.1 ms']);
    expect(axisLabels(chartScale(0.11))).toEqual(['0 ms', '0.1 ms', '0.2 ms']);
    expect(axisLabels(10_000)).toEqual(['0 ms', '5000 ms', '10000 ms']);
  });
});
