// The config flags per kubelet minor (src/kubeletconfig/flag-history.ts): each row cites where the fact came from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FlagError,
  KUBELET_FLAGS,
  KUBELET_MINORS,
  kubeletFlagsOf,
  kubeletVersion,
  parseKubeletFlags,
} from '../../src/kubeletconfig/index.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function refused(argv: string[], minor: number): string | undefined {
  try {
    parseKubeletFlags(argv, minor);
    return undefined;
  } catch (e) {
    assert.ok(e instanceof FlagError);
    return e.message;
  }
}

interface Row {
  flag: string;
  /** Where the dates come from. */
  source: string;
  /** Minors that register it as a config flag, inclusive. */
  from: number;
  to?: number;
  /** Minors before `from` where it is a kubelet flag outside the config (left alone, not refused). */
  otherUntil?: number;
}

const ROWS: Row[] = [
  {
    flag: '--experimental-logging-sanitization=true',
    from: 22,
    to: 23,
    source: 'k8s.io/component-base logs/config.go BindLoggingFlags at v0.23.0 and v0.24.0',
  },
  {
    flag: '--experimental-kernel-memcg-notification=true',
    from: 22,
    to: 24,
    source: 'options.go vendored by kubeedge at k8s v1.24.14 and v1.26.7; kubernetes/kubernetes#109388',
  },
  { flag: '--fail-cgroupv1=true', from: 31, source: 'options.go vendored by kubeedge at k8s v1.30.7 and v1.31.12' },
  {
    flag: '--topology-manager-policy-options=prefer-closest-numa-nodes=true',
    from: 26,
    source: 'options.go vendored by kubeedge at k8s v1.24.14 and v1.26.7; field new in k8s.io/kubelet v0.26.0',
  },
  {
    flag: '--register-node=false',
    from: 23,
    otherUntil: 22,
    source: 'options.go vendored by kubeedge at k8s v1.22.6 (KubeletFlags) and v1.23.15 (config)',
  },
  {
    flag: '--container-runtime-endpoint=unix:///run/c.sock',
    from: 27,
    otherUntil: 26,
    source: 'options.go vendored by kubeedge at k8s v1.26.7 (KubeletFlags) and v1.27.7 (config)',
  },
  { flag: '--max-pods=7', from: 22, source: 'options.go at every vendored tag' },
];

for (const row of ROWS) {
  test(`${row.flag.split('=')[0]} per minor (${row.source})`, () => {
    const name = row.flag.split('=')[0]!;
    for (const minor of KUBELET_MINORS) {
      const config = minor >= row.from && minor <= (row.to ?? Infinity);
      const other = !config && minor <= (row.otherUntil ?? 0);
      if (config) {
        const p = parseKubeletFlags([row.flag], minor);
        assert.equal(p.given.length, 1, `1.${minor}`);
        assert.deepEqual(p.rest, [], `1.${minor}`);
      } else if (other) {
        assert.deepEqual(parseKubeletFlags([row.flag], minor).rest, [row.flag], `1.${minor}`);
      } else {
        assert.equal(refused([row.flag], minor), `unknown flag: ${name}`, `1.${minor}`);
      }
    }
  });
}

test("1.22 keeps its flags: the table is 1.22's, and parsing without a minor is parsing as 1.22", () => {
  assert.deepEqual([...kubeletFlagsOf(22).keys()].sort(), [...KUBELET_FLAGS.keys()].sort());
  assert.deepEqual(
    parseKubeletFlags(['--max-pods=3', '--node-ip', '10.0.0.1']),
    parseKubeletFlags(['--max-pods=3', '--node-ip', '10.0.0.1'], 22),
  );
  assert.equal(refused(['--fail_cgroupv1'], 22), 'unknown flag: --fail_cgroupv1');
});

test('every config flag of a minor sets a field that minor has', () => {
  for (const minor of KUBELET_MINORS) {
    const fields = kubeletVersion(`1.${minor}`).fields();
    for (const spec of kubeletFlagsOf(minor).values())
      assert.ok(fields.has(spec.field), `1.${minor} --${spec.name} → ${spec.field}`);
  }
});

test('effectiveConfig parses the flags as the chosen kubelet: a removed flag is the flags layer failing', () => {
  const file = { bytes: HEADER, dir: '/tmp', name: 'k.yaml' };
  const at23 = kubeletVersion('1.23').effectiveConfig({ file, flags: ['--experimental-logging-sanitization'] });
  assert.ok(at23.ok);
  const at24 = kubeletVersion('1.24').effectiveConfig({ file, flags: ['--experimental-logging-sanitization'] });
  assert.deepEqual(at24.ok ? undefined : [at24.stage, at24.errors], [
    'flags',
    ['unknown flag: --experimental-logging-sanitization'],
  ]);
  const at31 = kubeletVersion('1.31').effectiveConfig({ file, flags: ['--fail-cgroupv1=false'] });
  assert.ok(at31.ok);
  assert.equal((at31.config as unknown as Record<string, unknown>)['failCgroupV1'], false);
});
