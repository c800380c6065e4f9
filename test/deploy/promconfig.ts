// The shipped Prometheus assets made runnable in a test: placeholders filled in, intervals and `for:` shortened.
// Debian's prometheus and promtool are built without Kubernetes discovery (the package drops client-go), so they
// refuse a `kubernetes_sd_configs` block: the scrape jobs run as shipped in Debian's vmagent (test/deploy/vmagent.ts),
// which implements that discovery itself, and Prometheus evaluates the shipped rules over what vmagent writes into it
// (rulesOnlyConfig). For promtool's own check of the file, the node job's discovery can be swapped for an HTTP one.

import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { repoRoot } from '../helpers/paths.js';

export const PROMETHEUS_DIR = join(repoRoot, 'deploy/prometheus');
export const DASHBOARD = join(repoRoot, 'deploy/grafana/dkc-fleet.json');

export const SHIPPED_CA = '/etc/prometheus/dkc/ca.crt';
export const SHIPPED_TOKEN = '/etc/prometheus/dkc/token';
export const SHIPPED_CERT = '/etc/prometheus/dkc/prometheus.crt';
export const SHIPPED_KEY = '/etc/prometheus/dkc/prometheus.key';

/** The path of `name` on PATH, or a failure that says how to get it (the tests are not skipped without it). */
export function requireTool(name: string, debianPackage = 'prometheus'): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (!found)
    throw new Error(
      `${name} is not installed: scripts/test-deps.sh installs Debian's ${debianPackage} package, which has it`,
    );
  return found;
}

export interface Substitutions {
  /** host:port of dkc server. */
  server: string;
  caFile: string;
  tokenFile: string;
  /** The client certificate and key of the user `prometheus`, for the nodes; none keeps the shipped paths. */
  certFile?: string;
  keyFile?: string;
  /** An HTTP discovery URL for promtool's check (its targets are never scraped); none keeps kubernetes_sd_configs. */
  nodeDiscoveryUrl?: string;
  /** scrape and evaluation interval, e.g. "1s"; none keeps the shipped ones. */
  interval?: string;
}

type ScrapeConfig = Record<string, unknown> & { job_name: string };

export async function shippedConfig(): Promise<{ scrape_configs: ScrapeConfig[] } & Record<string, unknown>> {
  return parse(await readFile(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8')) as { scrape_configs: ScrapeConfig[] };
}

/** The shipped prometheus.yml with `s` applied. */
export async function testConfig(s: Substitutions): Promise<string> {
  let text = await readFile(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8');
  text = text
    .replaceAll('DKC_SERVER', s.server)
    .replaceAll(SHIPPED_CA, s.caFile)
    .replaceAll(SHIPPED_TOKEN, s.tokenFile)
    .replaceAll(SHIPPED_CERT, s.certFile ?? SHIPPED_CERT)
    .replaceAll(SHIPPED_KEY, s.keyFile ?? SHIPPED_KEY);
  const config = parse(text) as { global: Record<string, string>; scrape_configs: ScrapeConfig[] };
  if (s.interval) config.global = { ...config.global, scrape_interval: s.interval, evaluation_interval: s.interval };
  if (s.nodeDiscoveryUrl) {
    const nodes = config.scrape_configs.find((c) => c.job_name === 'dkc-nodes')!;
    delete nodes['kubernetes_sd_configs'];
    nodes['http_sd_configs'] = [{ url: s.nodeDiscoveryUrl, refresh_interval: s.interval ?? '30s' }];
  }
  return stringify(config);
}

/**
 * The shipped prometheus.yml as testConfig makes it, less its scrape jobs: for a Prometheus that evaluates the
 * shipped rules over what vmagent scrapes with the jobs and writes into it.
 */
export async function rulesOnlyConfig(s: Substitutions): Promise<string> {
  const config = parse(await testConfig(s)) as Record<string, unknown>;
  delete config['scrape_configs'];
  return stringify(config);
}

/** The shipped rules.yml with every `for:` set to `duration`. */
export async function testRules(duration: string): Promise<string> {
  const text = await readFile(join(PROMETHEUS_DIR, 'rules.yml'), 'utf8');
  const rules = parse(text) as { groups: { rules: { for?: string }[] }[] };
  for (const g of rules.groups) for (const r of g.rules) if (r.for !== undefined) r.for = duration;
  return stringify(rules);
}

/** Every PromQL expression of the Grafana dashboard, with Grafana's $__rate_interval given a value. */
export async function dashboardExpressions(rateInterval: string): Promise<{ panel: string; expr: string }[]> {
  const dash = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return dash.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr.replaceAll('$__rate_interval', rateInterval) })),
  );
}
