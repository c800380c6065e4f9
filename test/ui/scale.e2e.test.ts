// The fleet page at 5,000 nodes, in headless Chromium against a real `dkc server` (controllers off: the nodes have no
// agents and no Leases): the whole fleet is counted, only the rows in view are in the page, the last node is reached
// by scrolling, and a label selector typed into the page is applied by the API server.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { RestClient } from '../../src/client/index.js';
import { startUi } from './uiprocess.js';
import { repoRoot, startServer, type RunningServer } from '../helpers/server.js';

const NODES = 5000;
const OUTPUT = join(repoRoot, 'test-output', 'ui');

let server: RunningServer | undefined;
let ui: ChildProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let url = '';
const consoleErrors: string[] = [];

async function createNodes(client: RestClient): Promise<void> {
  const names = Array.from({ length: NODES }, (_, i) => `node-${String(i).padStart(4, '0')}`);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const i = next++;
      await client.create('/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: names[i], labels: { pool: i % 2 ? 'odd' : 'even' } },
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

const summary = (): Promise<string> => page.$eval('[data-summary]', (e) => e.textContent ?? '');

before(async () => {
  await mkdir(OUTPUT, { recursive: true });
  server = await startServer(['--controllers=']);
  const client = await RestClient.fromKubeconfig(server.kubeconfig);
  try {
    await createNodes(client);
  } finally {
    client.close();
  }
  url = await startUi(server.kubeconfig, (p) => (ui = p));
  const executablePath =
    process.env['DKC_CHROMIUM'] ??
    execFileSync('bash', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    defaultViewport: { width: 1280, height: 800 },
  });
  page = await browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${String(err)}`));
});

after(async () => {
  await browser?.close();
  if (ui && ui.exitCode === null) {
    const exited = new Promise((r) => ui!.once('exit', r));
    ui.kill('SIGTERM');
    await exited;
  }
  await server?.cleanup();
});

describe('the fleet page at 5,000 nodes', { concurrency: false }, () => {
  it('counts every node but keeps only the rows in view in the page', async () => {
    const started = performance.now();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(
      (n) => document.querySelector('[data-summary]')?.textContent?.startsWith(`${n} nodes`),
      { timeout: 20_000 },
      NODES,
    );
    const ms = performance.now() - started;
    console.log(`# 5,000 nodes listed and shown in ${ms.toFixed(0)} ms`);
    const rows = await page.$$eval('[data-node]', (els) => els.length);
    assert.ok(rows > 5 && rows < 100, `${rows} node rows in the page`);
    await page.$eval('.rows', (e) => e.scrollTo(0, e.scrollHeight));
    await page.waitForSelector('[data-node="node-4999"]');
    await page.screenshot({ path: join(OUTPUT, 'fleet-5000.png') });
    assert.ok(ms < 15_000, `showing 5,000 nodes took ${ms.toFixed(0)} ms`);
  });

  it('filters by a label selector on the server', async () => {
    await page.type('#selector', 'pool=odd');
    await page.click('.controls button[type="submit"]');
    await page.waitForFunction(
      (n) => document.querySelector('[data-summary]')?.textContent?.startsWith(`${n} nodes`),
      { timeout: 20_000 },
      NODES / 2,
    );
    assert.match(await summary(), /^2500 nodes in 1 config, 2500 needing attention$/);
    const shown = await page.$$eval('[data-node]', (els) => els.map((e) => (e as HTMLElement).dataset['node']));
    assert.ok(shown.length > 0 && shown.every((n) => Number(n!.slice(5)) % 2 === 1), shown.join(' '));
  });

  it('logged no errors in the browser console', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
