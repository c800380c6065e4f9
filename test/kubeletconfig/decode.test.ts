import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError, ErrorCodes, decode, load } from '../../src/kubeletconfig/index.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function decodeError(data: string | Uint8Array, source?: string): DecodeError {
  try {
    decode(data, source === undefined ? {} : { source });
  } catch (e) {
    assert.ok(e instanceof DecodeError, `expected a DecodeError, got ${String(e)}`);
    return e;
  }
  assert.fail('decode succeeded');
}

test('missing kind: the source is named where apimachinery quotes the whole text, checked before apiVersion', () => {
  const data = 'apiVersion: kubelet.config.k8s.io/v1beta1\nport: 10250\n';
  const e = decodeError(data);
  assert.equal(e.code, ErrorCodes.MissingKind);
  assert.equal(e.message, "failed to decode: Object 'Kind' is missing");
  assert.equal(
    decodeError(data, 'cm/kube-system/x:kubelet').message,
    `failed to decode: Object 'Kind' is missing in "cm/kube-system/x:kubelet"`,
  );
  assert.equal(decodeError('port: 1\n').code, ErrorCodes.MissingKind);
});

test('missing apiVersion', () => {
  const e = decodeError('kind: KubeletConfiguration\nport: 1\n', '/etc/kubernetes/kubelet.yaml');
  assert.equal(e.code, ErrorCodes.MissingVersion);
  assert.equal(e.message, `failed to decode: Object 'apiVersion' is missing in "/etc/kubernetes/kubelet.yaml"`);
  assert.equal(
    decodeError('kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/\n').code,
    ErrorCodes.MissingVersion,
  );
});

test('wrong group or version is not registered in the kubelet config scheme', () => {
  const e = decodeError('kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1\n');
  assert.equal(e.code, ErrorCodes.NotRegistered);
  assert.equal(
    e.message,
    'failed to decode: no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:32"',
  );
  assert.equal(
    decodeError('kind: KubeletConfiguration\napiVersion: kubeadm.k8s.io/v1beta1\n').message,
    'failed to decode: no kind "KubeletConfiguration" is registered for version "kubeadm.k8s.io/v1beta1" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:32"',
  );
  assert.equal(
    decodeError('kind: Pod\napiVersion: v1\n').message,
    'failed to decode: no kind "Pod" is registered for version "v1" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:32"',
  );
});

test('an apiVersion with two slashes is rejected before kind is looked at', () => {
  const e = decodeError('apiVersion: a/b/c\n');
  assert.equal(e.code, ErrorCodes.BadGroupVersion);
  assert.equal(e.message, 'failed to decode: unexpected GroupVersion string: (not shown)');
});

test('a kind or apiVersion that has not the shape of a Kubernetes type is not quoted', () => {
  assert.equal(
    decodeError('kind: hunter2 is the password\napiVersion: v1\n').message,
    'failed to decode: no kind (not shown) is registered for version "v1" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:32"',
  );
  assert.equal(
    decodeError('kind: Secret\napiVersion: s3cr3t/token=abc\n').message,
    'failed to decode: no kind "Secret" is registered for version (not shown) in scheme "pkg/kubelet/apis/config/scheme/scheme.go:32"',
  );
});

test('SerializedNodeConfigSource decodes but is not a KubeletConfiguration', () => {
  const e = decodeError('kind: SerializedNodeConfigSource\napiVersion: kubelet.config.k8s.io/v1beta1\n');
  assert.equal(e.code, ErrorCodes.WrongKind);
  assert.equal(
    e.message,
    'failed to decode: failed to cast object to KubeletConfiguration, unexpected type: kubelet.config.k8s.io/v1beta1, Kind=SerializedNodeConfigSource',
  );
});

test('{0xdeadbeef} is a JSON syntax error in encoding/json words', () => {
  const e = decodeError('{0xdeadbeef}');
  assert.equal(e.code, ErrorCodes.Syntax);
  assert.equal(
    e.message,
    "failed to decode: couldn't get version/kind; json parse error: invalid character '0' looking for beginning of object key string",
  );
});

test('other JSON syntax errors', () => {
  const cases: Array<[string, string]> = [
    ['{"kind": "KubeletConfiguration",}', "invalid character '}' looking for beginning of object key string"],
    ['{"kind" "x"}', "invalid character '\"' after object key"],
    ['{"a": 1 "b": 2}', "invalid character '\"' after object key:value pair"],
    ['{"a": [1 2]}', "invalid character '2' after array element"],
    ['{"a": tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a": -x}', "invalid character 'x' in numeric literal"],
    ['{"a": 1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a": 1} x', "invalid character 'x' after top-level value"],
    ['{"a": ', 'unexpected end of JSON input'],
    ['{"a": "\\q"}', "invalid character 'q' in string escape code"],
  ];
  for (const [data, msg] of cases)
    assert.equal(decodeError(data).detail, `couldn't get version/kind; json parse error: ${msg}`, data);
});

test('a JSON number for a Duration is a type error (fatal)', () => {
  const e = decodeError(
    '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","syncFrequency":90}',
  );
  assert.equal(e.code, ErrorCodes.FieldType);
  assert.equal(
    e.message,
    'failed to decode: v1beta1.KubeletConfiguration.SyncFrequency: unmarshalerDecoder: json: cannot unmarshal number into Go value of type string',
  );
  assert.equal(decodeError(`${HEADER}syncFrequency: 90\n`).message, e.message, 'YAML numbers are JSON numbers too');
});

test('Durations use Go syntax and Go errors', () => {
  const ok = load(`${HEADER}syncFrequency: 1m30s\nfileCheckFrequency: 100ms\nhttpCheckFrequency: 1.5h\n`).config;
  assert.equal(ok.syncFrequency.toString(), '1m30s');
  assert.equal(ok.fileCheckFrequency.toString(), '100ms');
  assert.equal(ok.httpCheckFrequency.toString(), '1h30m0s');
  assert.equal(
    decodeError(`${HEADER}syncFrequency: 5 minutes\n`).detail,
    'v1beta1.KubeletConfiguration.SyncFrequency: unmarshalerDecoder: time: unknown unit in duration',
  );
  assert.equal(
    decodeError(`${HEADER}syncFrequency: ""\n`).detail,
    'v1beta1.KubeletConfiguration.SyncFrequency: unmarshalerDecoder: time: invalid duration',
  );
  assert.equal(
    decodeError(`${HEADER}syncFrequency: 10\n`).detail,
    'v1beta1.KubeletConfiguration.SyncFrequency: unmarshalerDecoder: json: cannot unmarshal number into Go value of type string',
  );
  assert.equal(
    decodeError(`${HEADER}syncFrequency: "10"\n`).detail,
    'v1beta1.KubeletConfiguration.SyncFrequency: unmarshalerDecoder: time: missing unit in duration',
  );
  assert.equal(
    decodeError(`${HEADER}authentication:\n  webhook:\n    cacheTTL: 10\n`).detail,
    'v1beta1.KubeletConfiguration.Authentication: v1beta1.KubeletAuthentication.Webhook: v1beta1.KubeletWebhookAuthentication.CacheTTL: unmarshalerDecoder: json: cannot unmarshal number into Go value of type string',
  );
});

test('an invalid quantity is a fatal decode error; valid ones keep exact values', () => {
  assert.equal(
    decodeError(`${HEADER}reservedMemory:\n- numaNode: 0\n  limits:\n    memory: 1.5.5Gi\n`).detail,
    "v1beta1.KubeletConfiguration.ReservedMemory: []v1beta1.MemoryReservation: v1beta1.MemoryReservation.Limits: unmarshalerDecoder: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  );
  assert.match(
    decodeError(`${HEADER}reservedMemory:\n- limits:\n    memory: 1ki\n`).detail,
    /unable to parse quantity's suffix$/,
  );
  const c = load(
    `${HEADER}reservedMemory:\n- numaNode: 0\n  limits:\n    memory: 1073741825\n    hugepages-2Mi: "2Gi"\n    hugepages-1Gi: 1e3\n`,
  ).config;
  const limits = c.reservedMemory![0]!.limits!;
  assert.equal(limits['memory']!.value(), 1073741825n);
  assert.equal(limits['hugepages-2Mi']!.value(), 2147483648n);
  assert.equal(limits['hugepages-1Gi']!.toString(), '1k', 'YAML 1e3 is a float: it reaches the codec as JSON 1000');
  const json = load(
    '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","reservedMemory":[{"numaNode":0,"limits":{"memory":1e3}}]}',
  ).config;
  assert.equal(json.reservedMemory![0]!.limits!['memory']!.toString(), '1e3', 'a JSON 1e3 keeps its exponent form');
});

test('type mismatches are fatal', () => {
  assert.equal(
    decodeError(`${HEADER}port: "10250"\n`).detail,
    'v1beta1.KubeletConfiguration.Port: readUint32: unexpected character: \ufffd',
  );
  assert.equal(
    decodeError(`${HEADER}port: 99999999999\n`).detail,
    'v1beta1.KubeletConfiguration.Port: readUint32: overflow',
  );
  assert.equal(
    decodeError(`${HEADER}enableServer: "true"\n`).detail,
    'v1beta1.KubeletConfiguration.EnableServer: ReadBool: expect t or f, but found "',
  );
  assert.equal(
    decodeError(`${HEADER}featureGates:\n  NodeSwap: "yes"\n`).detail,
    'v1beta1.KubeletConfiguration.FeatureGates: ReadBool: expect t or f, but found "',
  );
  assert.equal(
    decodeError(`${HEADER}clusterDomain: 5\n`).detail,
    'v1beta1.KubeletConfiguration.ClusterDomain: ReadString: expects " or n, but found 5',
  );
  assert.equal(
    decodeError(`${HEADER}clusterDNS: 10.0.0.1\n`).detail,
    'v1beta1.KubeletConfiguration.ClusterDNS: []string: ReadArrayCB: expect [ or n, but found "',
  );
  assert.equal(
    decodeError('{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","maxPods":110.0}').detail,
    'v1beta1.KubeletConfiguration.MaxPods: readUint32: unexpected character: .',
  );
});

test('YAML 1.1 scalars resolve as the kubelet resolves them', () => {
  const c = decode(
    `${HEADER}enableServer: no\nfailSwapOn: on\nmaxPods: 0x20\nport: 10250.0\nkubeAPIBurst: 1_000\n`,
  ).config;
  assert.equal(c.enableServer, false);
  assert.equal(c.failSwapOn, true);
  assert.equal(c.maxPods, 32);
  assert.equal(c.port, 10250, 'a YAML float with no fraction reaches the codec as an integer');
  assert.equal(c.kubeAPIBurst, 1000);
});

test('unknown fields are warnings and the config still decodes', () => {
  const r = load(`${HEADER}maxPods: 50\nfoo: bar\nPort: 1\nauthentication:\n  webhook:\n    bogus: 1\n`);
  assert.equal(r.config.maxPods, 50);
  assert.equal(r.config.port, 10250, 'keys are case-sensitive: Port does not set port');
  assert.deepEqual(
    r.warnings.map((w) => w.message),
    [
      'unknown field "Port", did you mean "port"?',
      'unknown field "authentication.webhook.bogus"',
      'unknown field "foo"',
    ],
  );
});

test('duplicate fields are warnings; the last occurrence wins', () => {
  const y = load(`${HEADER}maxPods: 10\nmaxPods: 20\n`);
  assert.equal(y.config.maxPods, 20);
  assert.deepEqual(y.warnings, [{ code: 'DuplicateField', path: 'maxPods', message: 'duplicate field "maxPods"' }]);
  const j = load(
    '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","maxPods":10,"maxPods":20}',
  );
  assert.equal(j.config.maxPods, 20);
  assert.equal(j.warnings[0]!.code, 'DuplicateField');
});

test('a repeated JSON object merges into the same struct, as Go decodes it', () => {
  const j = load(
    '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","authentication":{"anonymous":{"enabled":true}},"authentication":{"webhook":{"enabled":false}}}',
  );
  assert.equal(j.config.authentication.anonymous.enabled, true);
  assert.equal(j.config.authentication.webhook.enabled, false);
});

test('kind and apiVersion are sniffed case-insensitively, but then are unknown fields', () => {
  const r = load('Kind: KubeletConfiguration\nAPIVERSION: kubelet.config.k8s.io/v1beta1\nmaxPods: 7\n');
  assert.equal(r.config.maxPods, 7);
  assert.deepEqual(
    r.warnings.map((w) => w.path),
    ['APIVERSION', 'Kind'],
  );
  assert.deepEqual(
    r.warnings.map((w) => w.suggestion),
    ['apiVersion', 'kind'],
  );
});

test('YAML with anchors, aliases and merge keys', () => {
  const data = `${HEADER}evictionHard: &thresholds
  memory.available: 300Mi
  nodefs.available: 5%
evictionSoft: *thresholds
systemReserved:
  <<: {cpu: 100m, memory: 1Gi}
  memory: 2Gi
`;
  const c = load(data).config;
  assert.deepEqual(c.evictionSoft, { 'memory.available': '300Mi', 'nodefs.available': '5%' });
  assert.deepEqual(c.evictionHard, c.evictionSoft);
  assert.deepEqual(c.systemReserved, { cpu: '100m', memory: '2Gi' });
});

test('only the first YAML document is read', () => {
  const c = load(`${HEADER}maxPods: 1\n---\nmaxPods: 2\n`).config;
  assert.equal(c.maxPods, 1);
});

test('an empty file, a whitespace-only file and a comment-only file', () => {
  const empty = decodeError(new Uint8Array(0), '/etc/kubernetes/kubelet.yaml');
  assert.equal(empty.code, ErrorCodes.EmptyData);
  assert.equal(empty.message, 'kubelet config file "/etc/kubernetes/kubelet.yaml" was empty');
  assert.equal(decodeError('\n').message, "failed to decode: Object 'Kind' is missing");
  assert.equal(
    decodeError('# nothing here\n', 'kubelet.yaml').message,
    `failed to decode: Object 'Kind' is missing in "kubelet.yaml"`,
  );
});

test('YAML syntax errors and non-object documents', () => {
  assert.match(
    decodeError('kind: KubeletConfiguration\n  bad: [\n').detail,
    /^error converting YAML to JSON: yaml: line \d+: /,
  );
  assert.equal(
    decodeError('- a\n- b\n').detail,
    `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
  );
  assert.equal(
    decodeError('kind: 5\n').detail,
    "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string",
  );
});

test('bytes are accepted as well as strings', () => {
  const c = load(new TextEncoder().encode(`${HEADER}maxPods: 9\n`)).config;
  assert.equal(c.maxPods, 9);
});

test('int64 fields beyond the exactly representable range are rejected rather than rounded', () => {
  assert.equal(
    decodeError(`${HEADER}maxOpenFiles: 9007199254740993\n`).detail,
    'v1beta1.KubeletConfiguration.MaxOpenFiles: readUint64: the value is beyond the exactly representable range ±(2^53-1)',
  );
  assert.equal(load(`${HEADER}maxOpenFiles: 9007199254740991\n`).config.maxOpenFiles, Number.MAX_SAFE_INTEGER);
});

test('relative paths resolve against the directory of the payload', () => {
  const c = load(
    `${HEADER}staticPodPath: manifests/\ntlsCertFile: ../pki/kubelet.crt\ntlsPrivateKeyFile: /abs/key\nauthentication:\n  x509:\n    clientCAFile: ./ca.crt\n`,
    {
      dir: '/etc/kubernetes',
    },
  ).config;
  assert.equal(c.staticPodPath, '/etc/kubernetes/manifests');
  assert.equal(c.tlsCertFile, '/etc/pki/kubelet.crt');
  assert.equal(c.tlsPrivateKeyFile, '/abs/key');
  assert.equal(c.authentication.x509.clientCAFile, '/etc/kubernetes/ca.crt');
  assert.equal(c.resolvConf, '/etc/resolv.conf');
  assert.equal(c.tlsMinVersion, '', 'non-path fields untouched');
});

test('pathological payloads fail as syntax errors instead of crashing or hanging', () => {
  const deepYAML = `${HEADER}x: ${'['.repeat(100000)}${']'.repeat(100000)}\n`;
  assert.equal(decodeError(deepYAML).detail, 'error converting YAML to JSON: yaml: exceeded max depth');
  const deepJSON = `{"kind":"KubeletConfiguration","a":${'['.repeat(100000)}${']'.repeat(100000)}}`;
  assert.equal(decodeError(deepJSON).detail, "couldn't get version/kind; json parse error: exceeded max depth");
  let laughs = `${HEADER}a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n`;
  for (let i = 1; i < 9; i++)
    laughs += `a${i}: &a${i} [${Array(10)
      .fill(`*a${i - 1}`)
      .join(', ')}]\n`;
  assert.equal(decodeError(laughs).detail, 'error converting YAML to JSON: yaml: document contains excessive aliasing');
});
