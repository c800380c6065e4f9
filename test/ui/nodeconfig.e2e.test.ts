// dkc ui in a real headless Chromium against `dkc server --emulated-version 1.31`, where nodes are assigned through
// their NodeConfigs: `dkc ui` says so at start, the fleet page groups the nodes by their NodeConfig's status.config,
// a NodeConfig status change moves a node live, and the node page shows its NodeConfig's error. No agent runs: the
// test writes each NodeConfig's status as a node's agent would.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { RestClient } from '../../src/client/index.js';
import { dkcBin, repoRoot, startServer, type RunningServer } from '../helpers/server.js';

const OUTPUT = join(repoRoot, 'test-output', 'ui');
const LOCAL = 'local config (no ConfigMap)';
const BLUE = 'kube-system/blue:kubelet';
const NC = '/apis/dkc.io/v1alpha1/nodeconfigs';

let server: RunningServer | undefined;
let admin: RestClient;
let ui: ChildProcess | undefined;
let uiOutput = '';
let url = '';
let browser: Browser | undefined;
let page: Page;
const consoleErrors: string[] = [];
let blue: {
  configMap: { namespace: string; name: string; kubeletConfigKey: string; uid: string; resourceVersion: string };
};

const ready = {
  type: 'Ready',
  status: 'True',
  reason: 'KubeletReady',
  lastHeartbeatTime: new Date().toISOString(),
  lastTransitionTime: new Date().toISOString(),
};

async function createNode(name: string): Promise<string> {
  const n = await admin.create<{ metadata: { uid: string } }>('/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
  });
  await admin.patch(`/api/v1/nodes/${name}/status`, 'merge', { status: { conditions: [ready] } });
  return n.metadata.uid;
}

/** The node's NodeConfig, created assigning blue. */
async function assignBlue(name: string, uid: string): Promise<void> {
  const spec = { configSource: { configMap: { namespace: 'kube-system', name: 'blue', kubeletConfigKey: 'kubelet' } } };
  await admin.create(NC, {
    apiVersion: 'dkc.io/v1alpha1',
    kind: 'NodeConfig',
    metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid }] },
    spec,
  });
}

/** What the node's agent reports on its NodeConfig. */
const report = (name: string, config: Record<string, unknown>) =>
  admin.patch(`${NC}/${name}/status`, 'merge', { status: { config } });

function groupsOnPage(): Promise<Record<string, string>> {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll<HTMLElement>('[data-node]')].map(
        (e) => [e.dataset['node'], e.dataset['group']] as [string, string],
      ),
    ),
  );
}

before(async () => {
  await mkdir(OUTPUT, { recursive: true });
  server = await startServer(['--emulated-version', '1.31', '--controllers', '']);
  admin = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 10_000 });
  const cm = await admin.create<{ metadata: { uid: string; resourceVersion: string } }>(
    '/api/v1/namespaces/kube-system/configmaps',
    {
      metadata: { name: 'blue', namespace: 'kube-system' },
      data: {
        kubelet: '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","eventRecordQPS":7}',
      },
    },
  );
  blue = {
    configMap: {
      namespace: 'kube-system',
      name: 'blue',
      kubeletConfigKey: 'kubelet',
      uid: cm.metadata.uid,
      resourceVersion: cm.metadata.resourceVersion,
    },
  };
  const uid1 = await createNode('node-1');
  const uid2 = await createNode('node-2');
  await assignBlue('node-1', uid1);
  await report('node-1', { assigned: blue, active: blue, lastKnownGood: blue });
  await assignBlue('node-2', uid2);
  await report('node-2', { assigned: blue });
  const p = spawn(process.execPath, [dkcBin, 'ui', '--kubeconfig', server.kubeconfig, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  ui = p;
  url = await new Promise<string>((resolve, reject) => {
    p.stdout.on('data', (d: Buffer) => {
      uiOutput += d.toString();
      const m = /Serving the fleet view on (http:\/\/\S+)/.exec(uiOutput);
      if (m) resolve(m[1]!);
    });
    p.stderr.on('data', (d: Buffer) => (uiOutput += d.toString()));
    p.on('exit', (code) => reject(new Error(`dkc ui exited ${code}: ${uiOutput}`)));
  });
  const chromium =
    process.env['DKC_CHROMIUM'] ??
    execFileSync('bash', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    defaultViewport: { width: 1280, height: 800 },
  });
  page = await browser.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`console: ${m.text()} ${JSON.stringify(m.location())}`);
  });
  page.on('pageerror', (err) => consoleErrors.push(`pageerror: ${String(err)}`));
});

after(async () => {
  await browser?.close();
  if (ui && ui.exitCode === null && ui.signalCode === null) {
    const exited = new Promise((r) => ui!.once('exit', r));
    ui.kill('SIGTERM');
    await exited;
  }
  admin?.close();
  await server?.cleanup();
});

describe('dkc ui on the NodeConfig channel (dkc server --emulated-version 1.31)', { concurrency: false }, () => {
  it('says at start that it reads NodeConfigs', () => {
    assert.ok(
      uiOutput.includes(
        "config channel: NodeConfig (nodeconfigs.dkc.io) — the API server (v1.31.0) drops the Node's spec.configSource and status.config",
      ),
      uiOutput,
    );
  });

  it("groups the fleet by each node's NodeConfig status, and a NodeConfig status change moves a node live", async () => {
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelectorAll('[data-node]').length === 2);
    assert.deepEqual(await groupsOnPage(), { 'node-1': BLUE, 'node-2': LOCAL });
    const issues = await page.$eval('[data-node="node-2"]', (e) => (e as HTMLElement).dataset['issues']);
    assert.equal(issues, 'not-active', 'assigned blue on its NodeConfig, not active yet');
    await page.waitForSelector('[data-connection="live"]');
    await report('node-2', { assigned: blue, active: blue });
    await page.waitForFunction(
      (want) => document.querySelector<HTMLElement>('[data-node="node-2"]')?.dataset['group'] === want,
      { timeout: 10_000 },
      BLUE,
    );
    await page.screenshot({ path: join(OUTPUT, 'nodeconfig-fleet.png'), fullPage: true });
  });

  it("shows a node's NodeConfig error on its page", async () => {
    const error = 'failed to validate config, see Kubelet log for details';
    await report('node-1', { assigned: blue, active: null, lastKnownGood: blue, error });
    await page.goto(`${url}#/nodes/node-1`, { waitUntil: 'load' });
    await page.waitForFunction(
      (want) => document.querySelector('[data-config-error]')?.textContent === want,
      { timeout: 10_000 },
      error,
    );
    const status = await page.$eval('table.kv', (e) => e.textContent ?? '');
    assert.ok(status.includes(BLUE), status);
    assert.deepEqual(
      consoleErrors.filter((e) => !e.includes('configz') && !e.includes('/diff')),
      [],
    );
  });
});
