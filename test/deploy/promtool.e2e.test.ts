// The shipped Prometheus assets pass Prometheus' own checks: `promtool check rules`, `promtool test rules` (the unit
// tests beside the rules, one or more for every alert), and `promtool check config` of prometheus.yml with its
// placeholders filled in. The config's node discovery is checked as shipped: Kubernetes discovery of nodes from dkc
// server, relabeled to the API's node proxy.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { dashboardExpressions, PROMETHEUS_DIR, requireTool, shippedConfig, testConfig } from './promconfig.js';

function promtool(args: string[], cwd: string): { code: number; out: string } {
  const r = spawnSync(requireTool('promtool'), args, { cwd, encoding: 'utf8' });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

describe('deploy/prometheus with promtool', () => {
  let dir = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dkc-promtool-'));
  });

  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('rules.yml passes promtool check rules', () => {
    const r = promtool(['check', 'rules', 'rules.yml'], PROMETHEUS_DIR);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS: 4 rules found/);
  });

  it('every alert has a summary, a description, a runbook and a unit test, and the unit tests pass', async () => {
    const rules = parse(await readFile(join(PROMETHEUS_DIR, 'rules.yml'), 'utf8')) as {
      groups: { rules: { alert: string; annotations: Record<string, string> }[] }[];
    };
    const alerts = rules.groups.flatMap((g) => g.rules);
    assert.deepEqual(alerts.map((a) => a.alert).sort(), [
      'NodeConfigError',
      'NodeConfigNotActive',
      'NodeConfigRolloutHalted',
      'NodeNotReady',
    ]);
    for (const a of alerts)
      assert.deepEqual(Object.keys(a.annotations).sort(), ['description', 'runbook', 'summary'], a.alert);
    const tests = parse(await readFile(join(PROMETHEUS_DIR, 'rules.test.yml'), 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    const firing = new Set(
      tests.tests.flatMap((t) => t.alert_rule_test.filter((c) => c.exp_alerts.length > 0).map((c) => c.alertname)),
    );
    for (const a of alerts) assert.ok(firing.has(a.alert), `no unit test sees ${a.alert} fire`);
    const r = promtool(['test', 'rules', 'rules.test.yml'], PROMETHEUS_DIR);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS/);
  });

  it("prometheus.yml discovers nodes from dkc server and scrapes each at its own port with nodes/metrics' right, never through the node proxy", async () => {
    const config = await shippedConfig();
    const nodes = config.scrape_configs.find((c) => c.job_name === 'dkc-nodes')!;
    assert.deepEqual(
      (nodes['kubernetes_sd_configs'] as { role: string; api_server: string }[]).map((s) => [s.role, s.api_server]),
      [['node', 'https://DKC_SERVER']],
    );
    const relabel = nodes['relabel_configs'] as { target_label?: string; replacement?: string }[];
    assert.ok(!relabel.some((r) => r.target_label === '__address__' || r.target_label === '__metrics_path__'));
    assert.ok(relabel.some((r) => r.target_label === 'instance'));
    assert.deepEqual(nodes['tls_config'], {
      cert_file: '/etc/prometheus/dkc/prometheus.crt',
      key_file: '/etc/prometheus/dkc/prometheus.key',
      insecure_skip_verify: true,
    });
    assert.ok(config.scrape_configs.some((c) => c.job_name === 'dkc-server'));
    // The rights: nodes/metrics, never nodes/proxy (which on a real kubelet authorizes exec).
    const rbac = parse(
      await readFile(join(PROMETHEUS_DIR, 'rbac.yaml'), 'utf8').then((t) => t.split('\n---\n')[0]!),
    ) as {
      rules: { resources?: string[]; verbs: string[] }[];
    };
    const resources = rbac.rules.flatMap((r) => r.resources ?? []);
    assert.ok(resources.includes('nodes/metrics'));
    assert.ok(!resources.some((r) => r === 'nodes/proxy' || r === '*' || r === 'nodes/*'), resources.join(', '));
  });

  it('prometheus.yml, placeholders filled in, passes promtool check config', async () => {
    const ca = join(dir, 'ca.crt');
    const token = join(dir, 'token');
    const [certFile, keyFile] = [join(dir, 'prometheus.crt'), join(dir, 'prometheus.key')];
    for (const f of [ca, certFile, keyFile]) await writeFile(f, '');
    await writeFile(token, 'token\n');
    await copyFile(join(PROMETHEUS_DIR, 'rules.yml'), join(dir, 'rules.yml'));
    // Debian's promtool has no Kubernetes discovery; the node job's discovery is the one thing replaced (promconfig.ts).
    const text = await testConfig({
      server: '127.0.0.1:6443',
      caFile: ca,
      tokenFile: token,
      certFile,
      keyFile,
      nodeDiscoveryUrl: 'http://127.0.0.1:1/nodes',
    });
    await writeFile(join(dir, 'prometheus.yml'), text);
    const r = promtool(['check', 'config', 'prometheus.yml'], dir);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS: 1 rule files found/);
  });

  it('every PromQL expression of the Grafana dashboard parses', async () => {
    const exprs = await dashboardExpressions('1m');
    assert.ok(exprs.length >= 10);
    // A rules file of recording rules is what promtool parses PromQL in.
    const recording = {
      groups: [{ name: 'dashboard', rules: exprs.map((e, i) => ({ record: `dashboard:expr_${i}`, expr: e.expr })) }],
    };
    await writeFile(join(dir, 'dashboard-rules.yml'), JSON.stringify(recording));
    const r = promtool(['check', 'rules', 'dashboard-rules.yml'], dir);
    assert.equal(r.code, 0, r.out);
  });
});
