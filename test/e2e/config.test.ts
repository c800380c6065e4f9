// `dkc config diff`, `lint`, `render` and `validate --strict` as an operator runs them, as processes, against files,
// ConfigMaps and the nodes of a real local cluster (a server and two agents under dkc's supervisor): exit codes,
// output lines and JSON forms.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { startCluster, type Cluster } from '../../src/up/cluster.js';
import { freePort } from '../../src/up/cluster.js';
import { dkcBin } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { runDkc, type DkcRun } from '../helpers/dkc.js';
import { waitForConfigz } from '../helpers/nodeconfig.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

let work: string;
let cluster: Cluster;
let admin: RestClient;
let localConfig: string;

function dkc(...args: string[]): Promise<DkcRun> {
  return runDkc(args, { cwd: work, env: { ...process.env, KUBECONFIG: cluster.kubeconfig, HOME: work } });
}

const lines = (s: string): string[] => s.split('\n').filter((l) => l !== '');

async function configMap(name: string, data: Record<string, string>): Promise<void> {
  await admin.create('/api/v1/namespaces/kube-system/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    data,
  });
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'dkc-config-e2e-'));
  cluster = await startCluster({ dataDir: join(work, 'cluster'), nodes: 2, port: 0 });
  admin = await RestClient.fromKubeconfig(cluster.kubeconfig);
  await waitForConfigz(
    admin,
    cluster.nodes.map((n) => n.name),
  );
  localConfig = await readFile(cluster.nodes[0]!.config, 'utf8');
  await writeFile(join(work, 'base.yaml'), localConfig + 'maxPods: 50\n');
  await configMap('base', { kubelet: localConfig + 'maxPods: 50\n' });
  await configMap('typo', { kubelet: localConfig + 'maxPodz: 50\n' });
  await configMap('layers', {
    'eviction.conf': HEADER + 'evictionHard:\n  memory.available: 200Mi\n',
    'dns.conf': HEADER + 'clusterDNS: [10.0.0.10]\n',
  });
});

after(async () => {
  admin?.close();
  await cluster?.stop(5_000);
  if (work) await rm(work, { recursive: true, force: true });
});

describe('dkc config diff', () => {
  it('two nodes differ by the ports their flags give them: exit 1, one line per side of each changed leaf', async () => {
    const [a, b] = cluster.nodes;
    const r = await dkc('config', 'diff', 'node/node-1', 'node/node-2');
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(lines(r.stdout), [
      `- port: ${a!.port}`,
      `+ port: ${b!.port}`,
      `- healthzPort: ${a!.healthzPort}`,
      `+ healthzPort: ${b!.healthzPort}`,
    ]);
    assert.equal(r.stderr, '');
  });

  it('a node against itself, and a ConfigMap against the file it was made from: exit 0, no output', async () => {
    for (const [x, y] of [
      ['node/node-1', 'node/node-1'],
      ['cm/kube-system/base', 'base.yaml'],
    ] as const) {
      const r = await dkc('config', 'diff', x, y);
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], `${x} ${y}`);
    }
  });

  it('a default spelled out is no difference, on decoded and defaulted configs', async () => {
    await writeFile(join(work, 'explicit.yaml'), localConfig + 'maxPods: 110\nsyncFrequency: 60s\n');
    await writeFile(join(work, 'local.yaml'), localConfig);
    assert.equal((await dkc('config', 'diff', 'explicit.yaml', 'local.yaml')).code, 0);
  });

  it('-o json names both sides and lists the changes with their old and new values', async () => {
    const r = await dkc('config', 'diff', 'cm/kube-system/base', 'node/node-1', '-o', 'json');
    assert.equal(r.code, 1, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      a: string;
      b: string;
      equal: boolean;
      changes: { path: string; old?: unknown; new?: unknown }[];
    };
    assert.equal(doc.a, 'cm/kube-system/base:kubelet');
    assert.equal(doc.b, 'node/node-1');
    assert.equal(doc.equal, false);
    const byPath = new Map(doc.changes.map((c) => [c.path, c]));
    assert.deepEqual(byPath.get('maxPods'), { path: 'maxPods', keys: ['maxPods'], old: 50, new: 110 });
    // The node's --port holds the field: what the ConfigMap says of it is no change on that node.
    assert.deepEqual([...byPath.keys()], ['maxPods']);
  });

  it('a missing ConfigMap or node, or a bad source: one error line, exit 2', async () => {
    const missing = await dkc('config', 'diff', 'cm/kube-system/nope', 'base.yaml');
    assert.deepEqual(
      [missing.code, missing.stdout, missing.stderr],
      [2, '', 'error: configmap "nope" not found in namespace "kube-system"\n'],
    );
    const node = await dkc('config', 'diff', 'node/nope', 'base.yaml');
    assert.deepEqual([node.code, node.stderr], [2, 'error: node "nope" not found\n']);
    const key = await dkc('config', 'diff', 'cm/kube-system/base:other', 'base.yaml');
    assert.deepEqual(
      [key.code, key.stderr],
      [2, 'error: configmap kube-system/base has no key "other" (it has: kubelet)\n'],
    );
    const file = await dkc('config', 'diff', 'absent.yaml', 'base.yaml');
    assert.equal(file.code, 2);
    assert.match(file.stderr, /^error: failed to read "absent.yaml": ENOENT/);
    await writeFile(join(work, 'broken.yaml'), 'maxPods: 5\n');
    const broken = await dkc('config', 'diff', 'broken.yaml', 'base.yaml');
    assert.deepEqual(
      [broken.code, broken.stderr],
      [2, `broken.yaml: failed to decode: Object 'Kind' is missing in "broken.yaml"\n`],
    );
  });
});

describe('dkc config lint', () => {
  it('an unknown field is a warning with "did you mean"; exit 0, and 1 with --strict', async () => {
    const r = await dkc('config', 'lint', 'cm/kube-system/typo');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'cm/kube-system/typo:kubelet: warning: unknown field "maxPodz", did you mean "maxPods"?\n');
    assert.equal((await dkc('config', 'lint', '--strict', 'cm/kube-system/typo')).code, 1);
  });

  it('each changed field against a node is listed with its class and reason', async () => {
    await writeFile(
      join(work, 'open.yaml'),
      HEADER + 'authorization:\n  mode: AlwaysAllow\ncgroupDriver: systemd\nmaxPods: 50\n',
    );
    const r = await dkc('config', 'lint', 'open.yaml', '--against', 'node/node-1');
    assert.equal(r.code, 0, r.stderr);
    const out = lines(r.stdout);
    const ca = JSON.parse(/clientCAFile: (".*")/.exec(localConfig)![1]!) as string;
    assert.ok(
      out.includes(
        `dangerous  authentication.x509.clientCAFile: ${ca} -> (unset)  (who may call the node; removing clientCAFile makes /configz through the API proxy answer 401)`,
      ),
      out.join('\n'),
    );
    assert.ok(
      out.includes(
        'dangerous  authorization.mode: Webhook -> AlwaysAllow  (AlwaysAllow opens every endpoint of the node to anyone authenticated)',
      ),
      out.join('\n'),
    );
    assert.ok(
      out.includes(
        'disruptive cgroupDriver: cgroupfs -> systemd  (do not change without draining and rebooting the node; keep equal to the local config)',
      ),
      out.join('\n'),
    );
    assert.ok(
      out.includes(
        'safe       maxPods: 110 -> 50  (takes effect on restart; running pods stay even above a lower limit)',
      ),
      out.join('\n'),
    );
    assert.ok(
      !out.some((l) => /^\S+\s+(address|port|healthzPort|featureGates)/.test(l)),
      `the fields the node's flags hold are no change: ${out.join('\n')}`,
    );
    assert.equal(
      (await dkc('config', 'lint', '--strict', 'open.yaml', '--against', 'node/node-1')).code,
      1,
      'dangerous changes fail --strict',
    );
  });

  it('only safe changes against the defaults pass --strict; -o json carries classes and reasons', async () => {
    await writeFile(join(work, 'safe.yaml'), HEADER + 'maxPods: 50\neventRecordQPS: 7\n');
    const r = await dkc('config', 'lint', '--strict', 'safe.yaml', '-o', 'json');
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      source: string;
      against: string;
      errors: string[];
      warnings: string[];
      changes: { path: string; class: string }[];
    };
    assert.deepEqual([doc.source, doc.against, doc.errors, doc.warnings], ['safe.yaml', 'defaults', [], []]);
    assert.deepEqual(
      doc.changes.map((c) => [c.path, c.class]),
      [
        ['eventRecordQPS', 'safe'],
        ['maxPods', 'safe'],
      ],
    );
  });

  it("a config that does not validate: the kubelet's message, exit 1", async () => {
    await writeFile(join(work, 'invalid.yaml'), HEADER + 'imageGCHighThresholdPercent: 101\n');
    const r = await dkc('config', 'lint', 'invalid.yaml');
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^invalid\.yaml: invalid configuration: imageGCHighThresholdPercent \(--image-gc-high-threshold\) 101 must be between 0 and 100, inclusive\n$/,
    );
  });
});

describe('dkc config render', () => {
  it('a ConfigMap base, a ConfigMap drop-in and a directory of drop-ins merge in order', async () => {
    const dir = join(work, 'conf.d');
    await mkdir(join(dir, '20-sub'), { recursive: true });
    await writeFile(join(dir, '10-pods.conf'), HEADER + 'maxPods: 70\nfeatureGates:\n  A: true\n');
    await writeFile(join(dir, '20-sub', 'x.conf'), HEADER + 'maxPods: 80\nfeatureGates:\n  B: false\n');
    await writeFile(join(dir, '30-ignored.yaml'), HEADER + 'maxPods: 90\n');
    const r = await dkc(
      'config',
      'render',
      'cm/kube-system/base',
      'cm/kube-system/layers:eviction.conf',
      dir,
      '-o',
      'json',
    );
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(doc['kind'], 'KubeletConfiguration');
    assert.equal(
      doc['maxPods'],
      80,
      'the subdirectory comes after 10-pods.conf, as filepath.WalkDir visits it; .yaml files are not drop-ins',
    );
    assert.deepEqual(doc['featureGates'], { A: true, B: false });
    assert.deepEqual(doc['evictionHard'], {
      'imagefs.available': '15%',
      'memory.available': '200Mi',
      'nodefs.available': '10%',
      'nodefs.inodesFree': '5%',
    });
    assert.deepEqual((doc['authorization'] as { mode: string }).mode, 'Webhook');
  });

  it('YAML by default, and the rendered file diffs equal to what it says', async () => {
    const r = await dkc('config', 'render', 'base.yaml', 'cm/kube-system/layers:dns.conf');
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^address: 0\.0\.0\.0\napiVersion: kubelet\.config\.k8s\.io\/v1beta1\n/,
      'YAML with sorted keys, as the kubelet writes it',
    );
    assert.match(r.stdout, /\nkind: KubeletConfiguration\n/);
    assert.match(r.stdout, /\nclusterDNS:\n- 10\.0\.0\.10\n/);
    await writeFile(join(work, 'rendered.yaml'), r.stdout);
    const d = await dkc('config', 'diff', 'base.yaml', 'rendered.yaml');
    assert.deepEqual([d.code, lines(d.stdout)], [1, ['+ clusterDNS: ["10.0.0.10"]']]);
  });

  it('a drop-in that does not decode is named; exit 1', async () => {
    await writeFile(join(work, 'bad.conf'), 'maxPods: 5\n');
    const r = await dkc('config', 'render', 'base.yaml', 'bad.conf');
    assert.deepEqual(
      [r.code, r.stdout, r.stderr],
      [1, '', `bad.conf: failed to decode: Object 'Kind' is missing in "bad.conf"\n`],
    );
  });
});

describe('dkc config validate --strict', () => {
  it('unknown fields are errors: exit 1, the line has no "warning:"', async () => {
    await writeFile(join(work, 'typo.yaml'), localConfig + 'maxPodz: 50\n');
    const lenient = await dkc('config', 'validate', 'typo.yaml');
    assert.deepEqual(
      [lenient.code, lenient.stderr],
      [0, 'typo.yaml: warning: unknown field "maxPodz", did you mean "maxPods"?\n'],
    );
    const strict = await dkc('config', 'validate', '--strict', 'typo.yaml');
    assert.deepEqual(
      [strict.code, strict.stderr],
      [1, 'typo.yaml: unknown field "maxPodz", did you mean "maxPods"?\n'],
    );
    assert.equal((await dkc('config', 'validate', '--strict', 'base.yaml')).code, 0);
  });
});

describe('the agent keeps the lenient decode and logs the same warning', () => {
  it('for an assigned ConfigMap: the node runs it and its log names the field meant', async () => {
    const node = cluster.nodes[1]!;
    const source = { configMap: { name: 'typo', namespace: 'kube-system', kubeletConfigKey: 'kubelet' } };
    await admin.patch(`/api/v1/nodes/${node.name}`, 'merge', { spec: { configSource: source } });
    await waitFor(
      `${node.name} to run cm/kube-system/typo`,
      async () => {
        const n = await admin.get<{ status?: { config?: { active?: { configMap?: { name: string } } } } }>(
          `/api/v1/nodes/${node.name}`,
        );
        return n.status?.config?.active?.configMap?.name === 'typo' ? true : undefined;
      },
      30_000,
    );
    const log = await readFile(node.logFile, 'utf8');
    assert.match(log, /kubelet config controller: .*: unknown field "maxPodz", did you mean "maxPods"\?\n/);
  });

  it('for its --config file', async () => {
    const dir = await mkdtemp(join(work, 'agent-'));
    await writeFile(join(dir, 'kubelet.yaml'), HEADER + 'maxPodz: 5\n');
    const args = [
      dkcBin,
      'agent',
      `--config=${join(dir, 'kubelet.yaml')}`,
      `--cert-dir=${dir}`,
      `--port=${await freePort()}`,
      '--healthz-port=0',
      '--address=127.0.0.1',
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      await waitFor(
        'the warning',
        async () => (/unknown field "maxPodz", did you mean "maxPods"\?/.test(out) ? true : undefined),
        15_000,
      );
      assert.match(out, /kubelet\.yaml: unknown field "maxPodz", did you mean "maxPods"\?\n/);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});
