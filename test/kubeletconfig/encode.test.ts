import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Duration,
  Quantity,
  decode,
  encode,
  load,
  setDefaults,
  toConfigzJSON,
  toJSONObject,
} from '../../src/kubeletconfig/index.js';
import { parseYAML, writeJSON, yamlKeyLess } from '../../src/kubeletconfig/text.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

test('encode writes kind/apiVersion and reads back to the same config, in both formats', () => {
  const c = load(
    `${HEADER}maxPods: 42\neventRecordQPS: 0\nsyncFrequency: 90s\nfeatureGates:\n  NodeSwap: true\nreservedMemory:\n- numaNode: 1\n  limits:\n    memory: 1.5Gi\n`,
  ).config;
  for (const format of ['yaml', 'json'] as const) {
    const text = encode(c, format);
    const back = load(text).config;
    assert.equal(encode(back, format), text, format);
    assert.equal(back.maxPods, 42);
    assert.equal(back.eventRecordQPS, 0);
    assert.equal(back.syncFrequency.toString(), '1m30s');
    assert.equal(back.reservedMemory![0]!.limits!['memory']!.toString(), '1536Mi');
  }
  assert.match(encode(c, 'yaml'), /^address: 0\.0\.0\.0\napiVersion: kubelet\.config\.k8s\.io\/v1beta1\n/);
  assert.match(
    encode(c, 'json'),
    /^\{\n  "kind": "KubeletConfiguration",\n  "apiVersion": "kubelet\.config\.k8s\.io\/v1beta1",\n  "enableServer": true,/,
  );
});

test('omitempty: zero value fields are omitted, pointer fields and Durations always written', () => {
  const obj = toJSONObject(setDefaults({ eventRecordQPS: 0 }));
  assert.equal(obj['readOnlyPort'], undefined, 'int32 zero omitted');
  assert.equal(obj['staticPodPath'], undefined, 'empty string omitted');
  assert.equal(obj['rotateCertificates'], undefined, 'false omitted');
  assert.equal(obj['eventRecordQPS'], 0, 'pointer zero kept');
  assert.equal(obj['seccompDefault'], false, 'pointer false kept');
  assert.equal(obj['shutdownGracePeriod'], '0s', 'Durations are structs: always written');
  assert.deepEqual(obj['memorySwap'], {});
  assert.deepEqual(obj['authentication'], {
    x509: {},
    webhook: { enabled: true, cacheTTL: '2m0s' },
    anonymous: { enabled: false },
  });
});

test('an empty evictionHard or enforceNodeAllocatable survives a round trip (empty is not absent)', () => {
  const c = load(`${HEADER}evictionHard: {}\nenforceNodeAllocatable: []\n`).config;
  const back = load(encode(c)).config;
  assert.deepEqual(back.evictionHard, {});
  assert.deepEqual(back.enforceNodeAllocatable, []);
});

test('strings a YAML 1.1 reader would retype are quoted', () => {
  const c = setDefaults({
    cpuManagerPolicyOptions: {
      'full-pcpus-only': 'true',
      a: 'yes',
      b: 'on',
      c: '0777',
      d: '1e3',
      e: '',
      f: '- x',
      g: 'a: b',
      h: '~',
      i: 'é',
    },
    featureGates: { NodeSwap: true },
  });
  const text = encode(c);
  assert.match(text, /full-pcpus-only: "true"/);
  assert.match(text, /a: "yes"/);
  assert.match(text, /b: "on"/);
  assert.match(text, /c: "0777"/);
  assert.match(text, /d: "1e3"/);
  assert.match(text, /e: ""/);
  assert.match(text, /f: "- x"/);
  assert.match(text, /g: "a: b"/);
  assert.match(text, /h: "~"/);
  assert.deepEqual(load(text).config.cpuManagerPolicyOptions, c.cpuManagerPolicyOptions);
});

test('Quantities keep their spelling where apimachinery does; a YAML-looking float quantity stays a string', () => {
  const c = setDefaults({
    reservedMemory: [
      { numaNode: 0, limits: { memory: Quantity.parse('1e3'), 'hugepages-2Mi': Quantity.parse('2048Ki') } },
    ],
  });
  const text = encode(c);
  assert.match(text, /memory: "1e3"/);
  assert.match(text, /hugepages-2Mi: 2Mi/);
  assert.equal(load(text).config.reservedMemory![0]!.limits!['memory']!.toString(), '1e3');
});

test('reservedMemory entries without limits encode limits: null as Go does', () => {
  const obj = toJSONObject(setDefaults({ reservedMemory: [{ numaNode: 3 }] }));
  assert.deepEqual(obj['reservedMemory'], [{ numaNode: 3, limits: null }]);
});

test('configz JSON: compact, no kind/apiVersion, Go struct order, HTML-safe escapes', () => {
  const c = setDefaults({ staticPodURL: 'http://x/?a=1&b=<2>', syncFrequency: Duration.parse('1m') });
  const s = toConfigzJSON(c);
  assert.ok(s.startsWith('{"enableServer":true,"syncFrequency":"1m0s",'));
  assert.ok(!s.includes('"kind"') && !s.includes('"apiVersion"'));
  assert.ok(s.includes('"staticPodURL":"http://x/?a=1\\u0026b=\\u003c2\\u003e"'));
  assert.deepEqual((JSON.parse(s) as { memoryThrottlingFactor?: unknown }).memoryThrottlingFactor, 0.8);
});

test('partial configs encode only what they hold', () => {
  const p = decode(`${HEADER}port: 0\nmaxPods: 7\n`).config;
  assert.equal(encode(p), 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 7\n');
});

test('go-yaml key order: non-letters before letters, digit runs numerically', () => {
  const keys = ['b', 'a10', 'a2', 'A', '_x', 'a', 'memory.available', 'memory'];
  const sorted = [...keys].sort((x, y) => (yamlKeyLess(x, y) ? -1 : yamlKeyLess(y, x) ? 1 : 0));
  assert.deepEqual(sorted, ['_x', 'A', 'a', 'a2', 'a10', 'b', 'memory', 'memory.available']);
});

// The fast reader must agree with the full YAML library on everything it accepts.
const DOCS = [
  'a: 1\nb: yes\nc: "x"\nd: [1, "2", {e: f}]\ng:\n- h\n- i: j\n  k: l\n',
  '---\na: 0x10\nb: 0777\nc: 1e3\nd: 1_000\ne: ~\nf:\ng: 2001-12-14\nh: .5\ni: -1.5e-7\n',
  'on: 1\n1.5: x\nNULL: 2\n',
  'a:\n  b:\n    c: d\n  e: f\nl:\n  - 1\n  - 2\n',
  "x: 'it''s'\nz: \"a\\tb\\u00e9\\x41\"\n",
  'a: b # comment\n# c\nc: d\n...\nzzz: 1\n',
  'k: v\nk: w\n',
  'http: http://x:80/y\nempty: {}\nlist: []\n',
  '"quoted key": 1\n\'single\': 2\n',
  'seq:\n- - nested\n',
  'a: 1\n  b: 2\n',
  'key: value\n---\nsecond: doc\n',
  'r:\n- numaNode: 0\n  limits:\n    memory: 1Gi\n- numaNode: 1\n',
  'x: -\n',
  'x: [a, b,]\n',
];

test('fast YAML reader and full YAML reader agree', () => {
  for (const doc of DOCS) {
    const render = (force: boolean) => {
      try {
        return writeJSON(parseYAML(doc, { forceFullParser: force }).node);
      } catch {
        return 'ERROR';
      }
    };
    assert.equal(render(false), render(true), JSON.stringify(doc));
  }
});

test('the fast reader handles a realistic config without loading the YAML library', () => {
  const text = encode(
    setDefaults({ clusterDNS: ['10.96.0.10'], featureGates: { NodeSwap: true }, systemReserved: { cpu: '100m' } }),
  );
  assert.equal(parseYAML(text).usedFullParser, false);
  assert.equal(parseYAML('a: &x 1\nb: *x\n').usedFullParser, true);
});
