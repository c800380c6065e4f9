// What the node daemon reads of its kubelet on the host: the flags files in their three forms (a systemd
// EnvironmentFile as kubeadm writes it, a plain file of arguments, a NUL-separated command line), the config flags
// among them, and the version `kubelet --version` prints. A forged `dkc.io/config-flags` on the Node counts for
// nothing: the policy verdict follows the host's flags.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeletVersion } from '../../src/kubeletconfig/index.js';
import { readPolicy } from '../../src/nodepolicy/spec.js';
import {
  configFlagsOf,
  flagsFileArgs,
  kubeletVersionOnHost,
  readKubeletFlags,
  shellWords,
  versionFromOutput,
} from '../../src/nodedaemon/kubelethost.js';
import { judgeCandidate } from '../../src/nodedaemon/validate.js';

describe('node daemon: the kubelet as its host knows it', () => {
  it('flags files in each form give the arguments the kubelet runs with', () => {
    const table: [string, string, string[]][] = [
      [
        "kubeadm's kubeadm-flags.env",
        'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock --max-pods=110"\n',
        ['--container-runtime-endpoint=unix:///run/containerd/containerd.sock', '--max-pods=110'],
      ],
      [
        '/etc/default/kubelet, unquoted, with a comment and a blank line',
        '# extra flags\n\nKUBELET_EXTRA_ARGS=--max-pods=90   --node-labels=a=b\n',
        ['--max-pods=90', '--node-labels=a=b'],
      ],
      ['an empty variable', "KUBELET_EXTRA_ARGS=''\n", []],
      [
        'a plain file of arguments',
        '--max-pods=80 "--node-labels=a=b c"\n--v=2\n',
        ['--max-pods=80', '--node-labels=a=b c', '--v=2'],
      ],
      [
        'a command line (/proc/<pid>/cmdline)',
        '/usr/bin/kubelet\0--config=/var/lib/kubelet/config.yaml\0--max-pods\x00070\0',
        ['--config=/var/lib/kubelet/config.yaml', '--max-pods', '070'],
      ],
    ];
    for (const [what, text, want] of table) assert.deepEqual(flagsFileArgs(text), want, what);
    assert.deepEqual(shellWords(`a 'b c' "d\\"e" f\\ g`), ['a', 'b c', 'd"e', 'f g']);
  });

  it('only config flags hold fields, and every value is known', () => {
    const f = configFlagsOf(['--node-labels=a=b', '--max-pods=110', '--v=2'], 31);
    assert.deepEqual(
      f.given.given.map((g) => [g.name, g.value, g.field]),
      [['max-pods', '110', 'maxPods']],
    );
    assert.deepEqual(f.withheld, []);
  });

  it('reads the files in order, skips an absent one, and names one it cannot use', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dkc-kh-'));
    try {
      const kubeadm = join(dir, 'kubeadm-flags.env');
      const extra = join(dir, 'kubelet');
      const broken = join(dir, 'broken');
      await writeFile(kubeadm, 'KUBELET_KUBEADM_ARGS="--max-pods=110"\n');
      await writeFile(extra, 'KUBELET_EXTRA_ARGS=--max-pods=90\n');
      await writeFile(broken, '--max-pods=lots\n');
      const r = await readKubeletFlags([kubeadm, join(dir, 'absent'), extra, broken], 31);
      assert.deepEqual(r.read, [kubeadm, extra]);
      assert.equal(r.problems.length, 1);
      assert.match(r.problems[0]!, /broken: .*lots/);
      // Both are given, as the unit joins them: the last one wins when the kubelet applies them.
      assert.deepEqual(
        r.flags.given.given.map((g) => g.value),
        ['110', '90'],
      );
      assert.deepEqual((await readKubeletFlags([join(dir, 'absent')], 31)).flags.given.given, []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a flag on the Node is no flag on the host: a denied maxPods stays denied', () => {
    const kubelet = kubeletVersion('1.31');
    const governing = [
      { ...readPolicy({ metadata: { name: 'p' }, spec: { allowedFields: ['eventRecordQPS'] } }), selector: [] },
    ];
    const candidate = {
      mode: 'dropin' as const,
      payload: {
        bytes: Buffer.from('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 1000\n'),
        name: 'cm',
      },
      configDir: '/etc/kubernetes',
      dropIns: [],
      dropInName: '90-dkc.conf',
    };
    // The forged annotation's flag would hold maxPods on both sides ("no change"); the host has no such flag.
    const forged = configFlagsOf(['--max-pods=1000'], 31);
    assert.deepEqual(judgeCandidate(kubelet, candidate, { governing, flags: forged }), { ok: true });
    const host = configFlagsOf(['--node-labels=a=b'], 31);
    const v = judgeCandidate(kubelet, candidate, { governing, flags: host });
    assert.equal(v.ok, false);
    assert.match(v.ok ? '' : v.detail, /maxPods \(not in allowedFields\)/);
  });

  it("the version from the kubelet's binary, else the Node's with a warning", async () => {
    for (const [out, want] of [
      ['Kubernetes v1.31.2\n', '1.31'],
      ['Kubernetes v1.29.3-eks-1a2b3c\n', '1.29'],
      ['v1.30.0', '1.30'],
    ] as const)
      assert.equal(versionFromOutput(out), want, out);
    assert.throws(() => versionFromOutput('dkc v0.1.0\n'), /invalid kubelet version/);
    const warnings: string[] = [];
    const o = {
      flag: undefined,
      reported: 'v1.28.1',
      warn: (l: string) => warnings.push(l),
      unusable: (r: string, why: string) => new Error(`${r}: ${why}`),
    };
    assert.equal(await kubeletVersionOnHost({ ...o, command: "echo 'Kubernetes v1.30.1'" }), '1.30');
    assert.deepEqual(warnings, []);
    assert.equal(await kubeletVersionOnHost({ ...o, command: 'exit 3' }), '1.28');
    assert.match(
      warnings[0]!,
      /^cannot tell the kubelet's version from "exit 3" \(.*status 3\); using the Node's status\.nodeInfo\.kubeletVersion "v1\.28\.1", which anyone who may patch nodes\/status can change/,
    );
    assert.equal(await kubeletVersionOnHost({ ...o, flag: '1.27', command: 'exit 3' }), '1.27');
    await assert.rejects(
      kubeletVersionOnHost({ ...o, reported: '', command: 'exit 3' }),
      /^Error: : invalid kubelet version/,
    );
  });
});
