// The scale benchmark's chart: the spec carries both series on their own axes, vega renders it to SVG headless, and
// chromium turns the SVG into a PNG of the chart's size.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renderSvg, rolloutChartSpec, svgToPng, type RolloutSeries } from '../../bench/chart.js';

const series: RolloutSeries = {
  title: 'rollout over 4 nodes',
  nodes: 4,
  succeeded: [
    [0, 0],
    [1.5, 2],
    [3, 4],
  ],
  serverCpu: [
    [0.5, 40],
    [1.5, 120],
    [2.5, 90],
  ],
};

describe('rollout chart', () => {
  it('puts nodes succeeded and server CPU on independent y axes over one time axis', () => {
    const spec = rolloutChartSpec(series);
    const values = (spec['data'] as { values: { t: number; value: number; series: string }[] }).values;
    assert.deepEqual(
      values.filter((v) => v.series === 'nodes succeeded').map((v) => [v.t, v.value]),
      [
        [0, 0],
        [1.5, 2],
        [3, 4],
      ],
    );
    assert.equal(values.filter((v) => v.series.startsWith('server CPU')).length, 3);
    assert.deepEqual(spec['resolve'], { scale: { y: 'independent' } });
  });

  it('renders to SVG with both axis titles and the title', async () => {
    const svg = await renderSvg(rolloutChartSpec(series));
    assert.match(svg, /^<svg[^>]+width="\d+"/);
    for (const text of [
      'rollout over 4 nodes',
      'nodes succeeded',
      'server CPU, % of one core',
      'seconds since the rollout was created',
    ]) {
      assert.ok(svg.includes(text), `the SVG says "${text}"`);
    }
  });

  it('turns the SVG into a PNG with headless chromium', async () => {
    const png = await svgToPng(await renderSvg(rolloutChartSpec(series)));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const width = Buffer.from(png).readUInt32BE(16);
    assert.ok(width > 600, `the PNG is the chart's width (${width} px)`);
  });
});
