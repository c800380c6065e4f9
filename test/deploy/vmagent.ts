// Debian's vmagent (package victoria-metrics): VictoriaMetrics' scraping agent, which runs a Prometheus config's
// scrape jobs and implements their kubernetes_sd_configs itself (a list, then a watch, of the API's objects), and
// writes what it scrapes to a Prometheus remote-write receiver. Its own HTTP listener (targets, health) is on a free
// loopback port; the process is stopped by its PID.

import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/up/cluster.js';
import { waitFor } from '../helpers/wait.js';
import { requireTool } from './promconfig.js';

export interface VmagentTarget {
  discoveredLabels: Record<string, string>;
  labels: Record<string, string>;
  scrapeUrl: string;
  health: string;
  lastError: string;
}

export interface Vmagent {
  url: string;
  log(): string;
  /** The active targets, as vmagent's Prometheus-compatible /api/v1/targets lists them. */
  targets(): Promise<VmagentTarget[]>;
  stop(): Promise<void>;
}

export interface VmagentOptions {
  /** A Prometheus config file; settings vmagent does not have (rule_files, evaluation_interval) are ignored. */
  configFile: string;
  /** Where it keeps what it has yet to write. */
  dataDir: string;
  /** A Prometheus remote-write receiver, e.g. http://127.0.0.1:9090/api/v1/write. */
  remoteWriteUrl: string;
}

export async function startVmagent(o: VmagentOptions): Promise<Vmagent> {
  const bin = requireTool('vmagent', 'victoria-metrics');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    bin,
    [
      `-promscrape.config=${o.configFile}`,
      // The shipped file is Prometheus' own, so it also has settings of Prometheus' only.
      '-promscrape.config.strictParse=false',
      // How often discovered changes become targets (30 s by default). What the discovery knows changes only
      // through its watch: it lists again only every -promscrape.kubernetes.apiServerTimeout (30 min).
      '-promscrape.kubernetesSDCheckInterval=1s',
      `-httpListenAddr=127.0.0.1:${port}`,
      `-remoteWrite.url=${o.remoteWriteUrl}`,
      `-remoteWrite.tmpDataPath=${o.dataDir}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const vmagent: Vmagent = {
    url,
    log: () => log,
    async targets() {
      const res = await fetch(`${url}/api/v1/targets`);
      const body = (await res.json()) as { status: string; data: { activeTargets: VmagentTarget[] } };
      if (body.status !== 'success') throw new Error(`vmagent /api/v1/targets: ${res.status}`);
      return body.data.activeTargets;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // It flushes what it holds to the remote-write receiver first; that may already be gone.
      const hard = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(hard);
    },
  };
  try {
    await waitFor(
      'vmagent healthy',
      async () => {
        if (child.exitCode !== null) throw new Error(`vmagent exited ${child.exitCode}: ${log}`);
        const res = await fetch(`${url}/health`).catch(() => undefined);
        return res?.ok ? true : undefined;
      },
      30_000,
      100,
    );
  } catch (err) {
    await vmagent.stop();
    throw err;
  }
  return vmagent;
}
