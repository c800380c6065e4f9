import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FIELD_NAMES,
  FlagError,
  KUBELET_FLAGS,
  applyKubeletFlags,
  load,
  parseKubeletFlags,
  setDefaults,
} from '../../src/kubeletconfig/index.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function applied(argv: string[], yaml = '') {
  return applyKubeletFlags(load(HEADER + yaml).config, parseKubeletFlags(argv));
}

function flagError(argv: string[]): string {
  try {
    parseKubeletFlags(argv);
  } catch (e) {
    assert.ok(e instanceof FlagError);
    return e.message;
  }
  assert.fail('no error');
}

test('every flag of the reference table is known and maps onto a real field', () => {
  const expected = [
    'enable-server',
    'pod-manifest-path',
    'sync-frequency',
    'file-check-frequency',
    'http-check-frequency',
    'manifest-url',
    'manifest-url-header',
    'address',
    'port',
    'read-only-port',
    'tls-cert-file',
    'tls-private-key-file',
    'tls-cipher-suites',
    'tls-min-version',
    'rotate-certificates',
    'rotate-server-certificates',
    'client-ca-file',
    'authentication-token-webhook',
    'authentication-token-webhook-cache-ttl',
    'anonymous-auth',
    'authorization-mode',
    'authorization-webhook-cache-authorized-ttl',
    'authorization-webhook-cache-unauthorized-ttl',
    'registry-qps',
    'registry-burst',
    'event-qps',
    'event-burst',
    'enable-debugging-handlers',
    'contention-profiling',
    'healthz-port',
    'healthz-bind-address',
    'oom-score-adj',
    'cluster-domain',
    'cluster-dns',
    'streaming-connection-idle-timeout',
    'node-status-update-frequency',
    'minimum-image-ttl-duration',
    'image-gc-high-threshold',
    'image-gc-low-threshold',
    'volume-stats-agg-period',
    'kubelet-cgroups',
    'system-cgroups',
    'cgroup-root',
    'cgroups-per-qos',
    'cgroup-driver',
    'cpu-manager-policy',
    'cpu-manager-policy-options',
    'cpu-manager-reconcile-period',
    'memory-manager-policy',
    'topology-manager-policy',
    'topology-manager-scope',
    'qos-reserved',
    'runtime-request-timeout',
    'hairpin-mode',
    'max-pods',
    'pod-cidr',
    'pod-max-pids',
    'resolv-conf',
    'runonce',
    'cpu-cfs-quota',
    'cpu-cfs-quota-period',
    'node-status-max-images',
    'max-open-files',
    'kube-api-content-type',
    'kube-api-qps',
    'kube-api-burst',
    'serialize-image-pulls',
    'eviction-hard',
    'eviction-soft',
    'eviction-soft-grace-period',
    'eviction-pressure-transition-period',
    'eviction-max-pod-grace-period',
    'eviction-minimum-reclaim',
    'pods-per-core',
    'enable-controller-attach-detach',
    'protect-kernel-defaults',
    'make-iptables-util-chains',
    'iptables-masquerade-bit',
    'iptables-drop-bit',
    'feature-gates',
    'fail-swap-on',
    'container-log-max-size',
    'container-log-max-files',
    'system-reserved',
    'kube-reserved',
    'reserved-cpus',
    'system-reserved-cgroup',
    'kube-reserved-cgroup',
    'enforce-node-allocatable',
    'allowed-unsafe-sysctls',
    'volume-plugin-dir',
    'provider-id',
    'kernel-memcg-notification',
    'experimental-kernel-memcg-notification',
    'logging-format',
    'experimental-logging-sanitization',
    'reserved-memory',
  ];
  assert.deepEqual([...KUBELET_FLAGS.keys()].sort(), [...expected].sort());
  for (const spec of KUBELET_FLAGS.values()) assert.ok(FIELD_NAMES.includes(spec.field.split('.')[0]!), spec.field);
});

test('scalar flags with pflag syntax: --f=v, --f v, bare booleans, _ normalised', () => {
  const c = applied([
    '--event-qps=0',
    '--kube-api-qps',
    '7',
    '--max_pods=0x20',
    '--port',
    '10251',
    '--read-only-port=0',
    '--healthz-port=0',
    '--runonce',
    '--fail-swap-on=false',
    '--sync-frequency=1m30s',
    '--anonymous-auth',
    '--authorization-mode=AlwaysAllow',
    '--client-ca-file=/ca.crt',
    '--logging-format=json',
  ]);
  assert.equal(c.eventRecordQPS, 0);
  assert.equal(c.kubeAPIQPS, 7);
  assert.equal(c.maxPods, 32);
  assert.equal(c.port, 10251);
  assert.equal(c.readOnlyPort, 0);
  assert.equal(c.healthzPort, 0);
  assert.equal(c.runOnce, true);
  assert.equal(c.failSwapOn, false);
  assert.equal(c.syncFrequency.toString(), '1m30s');
  assert.equal(c.authentication.anonymous.enabled, true);
  assert.equal(c.authorization.mode, 'AlwaysAllow');
  assert.equal(c.authentication.x509.clientCAFile, '/ca.crt');
  assert.equal(c.logging.format, 'json');
});

test('only flags actually given override; a flag equal to the default still wins over the file', () => {
  const c = applied(['--max-pods=110'], 'maxPods: 50\nkubeAPIQPS: 20\n');
  assert.equal(c.maxPods, 110);
  assert.equal(c.kubeAPIQPS, 20, 'untouched by flags');
});

test('map flags replace the file map on first use and accumulate after', () => {
  const c = applied(
    [
      '--system-reserved=cpu=100m',
      '--system-reserved=memory=1Gi',
      '--eviction-hard=memory.available<500Mi',
      '--qos-reserved',
      'memory=50%',
    ],
    'systemReserved:\n  ephemeral-storage: 1Gi\n',
  );
  assert.deepEqual(c.systemReserved, { cpu: '100m', memory: '1Gi' });
  assert.deepEqual(c.evictionHard, { 'memory.available': '500Mi' });
  assert.deepEqual(c.qosReserved, { memory: '50%' });
  const empty = applied(['--eviction-hard='], '');
  assert.deepEqual(empty.evictionHard, {}, 'an empty value clears the map');
});

test('list flags: CSV, first use replaces, later uses append', () => {
  const c = applied(
    ['--cluster-dns=10.0.0.10,"10.0.0.11"', '--cluster-dns=10.0.0.12', '--enforce-node-allocatable='],
    'clusterDNS: [1.1.1.1]\n',
  );
  assert.deepEqual(c.clusterDNS, ['10.0.0.10', '10.0.0.11', '10.0.0.12']);
  assert.deepEqual(c.enforceNodeAllocatable, []);
});

test('multimap, no-split map and reserved memory flags', () => {
  const c = applied([
    '--manifest-url-header=a:1,b:2',
    '--manifest-url-header=a:3',
    '--cpu-manager-policy-options=full-pcpus-only=true',
    '--reserved-memory=0:memory=1Gi,hugepages-2Mi=4Mi;1:memory=2Gi',
  ]);
  assert.deepEqual(c.staticPodURLHeader, { a: ['1', '3'], b: ['2'] });
  assert.deepEqual(c.cpuManagerPolicyOptions, { 'full-pcpus-only': 'true' });
  assert.equal(c.reservedMemory!.length, 2);
  assert.equal(c.reservedMemory![0]!.limits!['hugepages-2Mi']!.toString(), '4Mi');
  assert.equal(c.reservedMemory![1]!.numaNode, 1);
});

test('--feature-gates merges per key with the loaded config, the flag winning', () => {
  const c = applied(
    ['--feature-gates=NodeSwap=true,CPUManager=false'],
    'featureGates:\n  CPUManager: true\n  MemoryQoS: true\n',
  );
  assert.deepEqual(c.featureGates, { NodeSwap: true, CPUManager: false, MemoryQoS: true });
});

test('non-config arguments are left over, untouched and in order', () => {
  const p = parseKubeletFlags([
    '--kubeconfig=/k',
    '--max-pods=3',
    'positional',
    '-v',
    '4',
    '--node-ip',
    '10.0.0.1',
    '--',
    '--port=1',
  ]);
  assert.deepEqual(p.given, [{ name: 'max-pods', value: '3', field: 'maxPods' }]);
  assert.deepEqual(p.rest, ['--kubeconfig=/k', 'positional', '-v', '4', '--node-ip', '10.0.0.1', '--', '--port=1']);
});

test('invalid values fail with pflag messages', () => {
  assert.equal(
    flagError(['--port=abc']),
    'invalid argument "abc" for "--port" flag: strconv.ParseInt: parsing "abc": invalid syntax',
  );
  assert.equal(
    flagError(['--port=99999999999']),
    'invalid argument "99999999999" for "--port" flag: strconv.ParseInt: parsing "99999999999": value out of range',
  );
  assert.equal(flagError(['--max-pods']), 'flag needs an argument: --max-pods');
  assert.equal(
    flagError(['--enable-server=maybe']),
    'invalid argument "maybe" for "--enable-server" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
  );
  // An inherited property of a plain object is no spelling of a bool.
  assert.equal(
    flagError(['--enable-server=constructor']),
    'invalid argument "constructor" for "--enable-server" flag: strconv.ParseBool: parsing "constructor": invalid syntax',
  );
  assert.equal(
    flagError(['--sync-frequency=10']),
    'invalid argument "10" for "--sync-frequency" flag: time: missing unit in duration "10"',
  );
  assert.equal(
    flagError(['--address=10.0.0.256']),
    'invalid argument "10.0.0.256" for "--address" flag: "10.0.0.256" is not a valid IP address',
  );
  assert.equal(
    flagError(['--system-reserved=cpu']),
    'invalid argument "cpu" for "--system-reserved" flag: malformed pair, expect string=string',
  );
  assert.equal(
    flagError(['--eviction-hard=memory.available=1Gi']),
    'invalid argument "memory.available=1Gi" for "--eviction-hard" flag: malformed pair, expect string<string',
  );
  assert.equal(
    flagError(['--feature-gates=A']),
    'invalid argument "A" for "--feature-gates" flag: malformed pair, expect string=bool',
  );
  assert.equal(
    flagError(['--feature-gates=A=yes']),
    'invalid argument "A=yes" for "--feature-gates" flag: invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
  );
  assert.equal(
    flagError(['--cluster-dns=a"b']),
    'invalid argument "a\\"b" for "--cluster-dns" flag: parse error on line 1, column 2: bare " in non-quoted-field',
  );
  assert.equal(
    flagError(['--reserved-memory=0:cpu=1']),
    'invalid argument "0:cpu=1" for "--reserved-memory" flag: memory type conversion error, unknown type: "cpu"',
  );
  assert.equal(
    flagError(['--reserved-memory=x:memory=1Gi']),
    'invalid argument "x:memory=1Gi" for "--reserved-memory" flag: failed to convert the NUMA node ID, exptected integer, got x',
  );
});

test('IP flags accept IPv4 and IPv6, ignore an empty value', () => {
  assert.equal(applied(['--address=::']).address, '::');
  assert.equal(applied(['--healthz-bind-address=fe80::1:2']).healthzBindAddress, 'fe80::1:2');
  assert.equal(applied(['--address=::ffff:10.0.0.1']).address, '::ffff:10.0.0.1');
  assert.equal(applied(['--address=']).address, '0.0.0.0');
  assert.throws(() => parseKubeletFlags(['--address=1::2::3']), FlagError);
});

test('applying flags never modifies the input config', () => {
  const base = setDefaults({ featureGates: { NodeSwap: true } });
  const before = JSON.stringify(base);
  applyKubeletFlags(
    base,
    parseKubeletFlags(['--feature-gates=MemoryQoS=true', '--max-pods=1', '--system-reserved=cpu=1']),
  );
  assert.equal(JSON.stringify(base), before);
});
