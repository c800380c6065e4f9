// The scale benchmark's chart: nodes succeeded over time during a rollout, with the server's CPU on a second axis.
// The spec is Vega-Lite (a pure function of the series, so it is tested without rendering); vega-lite compiles it,
// vega renders SVG headless (View.toSVG), and headless chromium turns that SVG into a PNG for places that want one.

import { writeFile } from 'node:fs/promises';

export interface RolloutSeries {
  title: string;
  /** Seconds since the rollout was created → nodes recorded Succeeded by then (a step series, ascending). */
  succeeded: readonly (readonly [number, number])[];
  /** Seconds since the rollout was created → the server's CPU over the preceding sample, % of one core. */
  serverCpu: readonly (readonly [number, number])[];
  nodes: number;
}

/** Vega-Lite spec with two y axes (nodes left, CPU right) sharing the time axis. Pure. */
export function rolloutChartSpec(s: RolloutSeries): Record<string, unknown> {
  const values = [
    ...s.succeeded.map(([t, n]) => ({ t, value: n, series: 'nodes succeeded' })),
    ...s.serverCpu.map(([t, c]) => ({ t, value: c, series: 'server CPU (% of one core)' })),
  ];
  const x = { field: 't', type: 'quantitative', title: 'seconds since the rollout was created' };
  const color = {
    field: 'series',
    type: 'nominal',
    title: null,
    scale: { range: ['#1f77b4', '#d62728'] },
    legend: { orient: 'bottom', labelLimit: 0 },
  };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: s.title,
    width: 640,
    height: 320,
    background: 'white',
    data: { values },
    encoding: { x },
    layer: [
      {
        transform: [{ filter: "datum.series === 'nodes succeeded'" }],
        mark: { type: 'line', interpolate: 'step-after' },
        encoding: {
          y: { field: 'value', type: 'quantitative', title: 'nodes succeeded', scale: { domain: [0, s.nodes] } },
          color,
        },
      },
      {
        transform: [{ filter: "datum.series !== 'nodes succeeded'" }],
        mark: { type: 'line', strokeDash: [4, 3], clip: true },
        encoding: {
          y: { field: 'value', type: 'quantitative', title: 'server CPU, % of one core', scale: { domain: [0, 200] } },
          color,
        },
      },
    ],
    resolve: { scale: { y: 'independent' } },
  };
}

/** The spec compiled by vega-lite and rendered to SVG by vega, headless (no browser, no canvas). */
export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const [vl, vega] = await Promise.all([import('vega-lite'), import('vega')]);
  const compiled = vl.compile(spec as unknown as Parameters<typeof vl.compile>[0]).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** An SVG drawn at its own size by headless chromium, as PNG bytes. */
export async function svgToPng(svg: string, chromium = '/usr/bin/chromium'): Promise<Uint8Array> {
  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage();
    await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
    const el = await page.$('svg');
    if (!el) throw new Error('the chart has no <svg> element');
    return await el.screenshot({ type: 'png' });
  } finally {
    await browser.close();
  }
}

/** Writes `<base>.svg` and `<base>.png`; returns their paths. */
export async function writeChart(series: RolloutSeries, base: string): Promise<{ svg: string; png: string }> {
  const svg = await renderSvg(rolloutChartSpec(series));
  await writeFile(`${base}.svg`, svg);
  await writeFile(`${base}.png`, await svgToPng(svg));
  return { svg: `${base}.svg`, png: `${base}.png` };
}
