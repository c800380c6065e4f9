import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import {
  apiPath,
  cloneSource,
  describeSource,
  metricLabels,
  parseSource,
  restartMessage,
  serializeSource,
  sourcesEqual,
  SourceError,
  SourceErrorCodes,
  type NodeConfigSource,
} from '../../../src/agent/dynamicconfig/source.js';
import type { ConfigMapNodeConfigSource } from '../../../src/api/types.js';
import { ref, REFERENCE_YAML } from './fixtures/reference.js';

const ALL_NIL =
  'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil, NodeConfigSource was: &v1.NodeConfigSource{ConfigMap:(*v1.ConfigMapNodeConfigSource)(nil)}';

/** ref with some fields changed; an undefined one is left out, as a decoded object would have it. */
function withCm(patch: {
  [K in keyof ConfigMapNodeConfigSource]?: ConfigMapNodeConfigSource[K] | undefined;
}): NodeConfigSource {
  const merged: Record<string, unknown> = { ...ref.configMap!, ...patch };
  for (const [k, v] of Object.entries(merged)) if (v === undefined) delete merged[k];
  return { configMap: merged as unknown as ConfigMapNodeConfigSource };
}

describe('sourcesEqual', () => {
  const cases: Array<[string, NodeConfigSource | null | undefined, NodeConfigSource | null | undefined, boolean]> = [
    ['nil, nil', undefined, undefined, true],
    ['null, undefined', null, undefined, true],
    ['nil, non-nil', undefined, ref, false],
    ['non-nil, nil', ref, null, false],
    ['same object', ref, ref, true],
    ['deep copy', ref, cloneSource(ref), true],
    ['namespace differs', ref, withCm({ namespace: 'other' }), false],
    ['name differs', ref, withCm({ name: 'other' }), false],
    ['uid differs', ref, withCm({ uid: 'other' }), false],
    ['resourceVersion differs', ref, withCm({ resourceVersion: '2' }), false],
    ['kubeletConfigKey differs', ref, withCm({ kubeletConfigKey: 'other' }), false],
    ['absent uid equals empty uid', withCm({ uid: undefined }), withCm({ uid: '' }), true],
    ['absent uid differs from set uid', withCm({ uid: undefined }), ref, false],
    ['both all-nil', {}, { configMap: null }, true],
    ['all-nil vs configMap', {}, ref, false],
  ];
  for (const [name, a, b, want] of cases) {
    it(name, () => {
      assert.equal(sourcesEqual(a, b), want);
      assert.equal(sourcesEqual(b, a), want, 'symmetric');
    });
  }
});

describe('renderings', () => {
  it('apiPath', () => {
    assert.equal(apiPath(ref), '/api/v1/namespaces/namespace/configmaps/name');
  });
  it('describeSource', () => {
    assert.equal(describeSource(ref), '/api/v1/namespaces/namespace/configmaps/name, UID: uid, ResourceVersion: 1');
    assert.equal(
      describeSource(withCm({ uid: undefined, resourceVersion: undefined })),
      '/api/v1/namespaces/namespace/configmaps/name, UID: , ResourceVersion: ',
    );
  });
  it('restartMessage for local and remote sources', () => {
    assert.equal(restartMessage(undefined), 'Kubelet restarting to use local config');
    assert.equal(restartMessage(null, 'x', 'y'), 'Kubelet restarting to use local config');
    assert.equal(
      restartMessage(ref),
      'Kubelet restarting to use /api/v1/namespaces/namespace/configmaps/name, UID: uid, ResourceVersion: 1, KubeletConfigKey: kubelet',
    );
    assert.equal(
      restartMessage(withCm({ uid: undefined, resourceVersion: undefined }), 'u-2', '42'),
      'Kubelet restarting to use /api/v1/namespaces/namespace/configmaps/name, UID: u-2, ResourceVersion: 42, KubeletConfigKey: kubelet',
    );
  });
  it('renderings refuse an all-nil source', () => {
    for (const f of [() => apiPath({}), () => describeSource({ configMap: null }), () => restartMessage({})]) {
      assert.throws(
        f,
        (e: unknown) => e instanceof SourceError && e.code === SourceErrorCodes.AllNil && e.message === ALL_NIL,
      );
    }
  });
});

describe('metricLabels', () => {
  it('nil is the local source with empty labels', () => {
    assert.deepEqual(metricLabels(undefined), {
      node_config_source: 'local',
      node_config_uid: '',
      node_config_resource_version: '',
      node_config_kubelet_key: '',
    });
    assert.deepEqual(metricLabels(null), metricLabels(undefined));
  });
  it('a ConfigMap source', () => {
    assert.deepEqual(metricLabels(ref), {
      node_config_source: '/api/v1/namespaces/namespace/configmaps/name',
      node_config_uid: 'uid',
      node_config_resource_version: '1',
      node_config_kubelet_key: 'kubelet',
    });
  });
  it('an all-nil source is an error with upstream text', () => {
    assert.throws(
      () => metricLabels({}),
      (e: unknown) =>
        e instanceof SourceError &&
        e.code === SourceErrorCodes.Unrecognized &&
        e.message === 'unrecognized config source type, all source subfields were nil',
    );
  });
});

describe('serializeSource', () => {
  it('matches the upstream record byte for byte', () => {
    assert.equal(serializeSource(ref), REFERENCE_YAML);
  });

  it('omits empty uid and resourceVersion and keeps empty required fields', () => {
    assert.equal(
      serializeSource({ configMap: { namespace: '', name: 'nm', kubeletConfigKey: 'k' } }),
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: k\n    name: nm\n    namespace: ""\n',
    );
  });

  // How go-yaml v2 writes each string: plain unless a YAML 1.1 reader would change its type (double
  // quotes) or YAML syntax gets in the way (single quotes).
  const scalars: Array<[string, string]> = [
    ['kubelet', 'kubelet'],
    ['1', '"1"'],
    ['12345', '"12345"'],
    ['-1', '"-1"'],
    ['08', '"08"'],
    ['0x1F', '"0x1F"'],
    ['0o17', '"0o17"'],
    ['0b101', '"0b101"'],
    ['1_000', '"1_000"'],
    ['1.5', '"1.5"'],
    ['.5', '".5"'],
    ['1e3', '"1e3"'],
    ['1e400', '1e400'],
    ['99999999999999999999', '"99999999999999999999"'],
    ['0x10000000000000000', '0x10000000000000000'],
    ['1:20', '"1:20"'],
    ['true', '"true"'],
    ['True', '"True"'],
    ['tRue', 'tRue'],
    ['y', '"y"'],
    ['n', '"n"'],
    ['no', '"no"'],
    ['off', '"off"'],
    ['null', '"null"'],
    ['~', '"~"'],
    ['.inf', '".inf"'],
    ['-.inf', '"-.inf"'],
    ['.', '.'],
    ['2020-01-02', '"2020-01-02"'],
    ['2020-1-2', '"2020-1-2"'],
    ['2020-13-01', '2020-13-01'],
    ['2021-02-29', '2021-02-29'],
    ['2020-02-29', '"2020-02-29"'],
    ['2001-12-14t21:59:43.10-05:00', '"2001-12-14t21:59:43.10-05:00"'],
    ['3f2504e0-4f89-11d3-9a0c-0305e82c3301', '3f2504e0-4f89-11d3-9a0c-0305e82c3301'],
    ['12345678-aaaa-bbbb-cccc-1234567890ab', '12345678-aaaa-bbbb-cccc-1234567890ab'],
    ['my-node-config-k7t8hch697', 'my-node-config-k7t8hch697'],
    ['-foo', '-foo'],
    ['-', "'-'"],
    ['#x', "'#x'"],
    ['a #x', "'a #x'"],
    ['a#x', 'a#x'],
    ['a: b', "'a: b'"],
    ['a:b', 'a:b'],
    ["it's", "it's"],
    ["'q'", "'''q'''"],
    ['*x', "'*x'"],
    [' lead', "' lead'"],
    ['tab\there', '"tab\\there"'],
    ['---x', "'---x'"],
  ];
  // go-yaml reads these plain spellings as strings (a lone dot, out-of-range numbers, impossible dates); the YAML
  // library used in this test does not, so only parseSource is asked about them.
  const libraryDisagrees = new Set(['.', '1e400', '0x10000000000000000', '2020-13-01', '2021-02-29']);
  for (const [value, want] of scalars) {
    it(`writes ${JSON.stringify(value)} as ${want}`, () => {
      const text = serializeSource(withCm({ uid: value }));
      const line = text.split('\n').find((l) => l.startsWith('    uid: '));
      assert.equal(line, `    uid: ${want}`);
      // Whatever the style, a YAML 1.1 reader gets the very string back, and so does parseSource.
      if (!libraryDisagrees.has(value)) {
        const viaLibrary = parseYaml(text, { version: '1.1' }) as { source: { configMap: { uid: unknown } } };
        assert.equal(viaLibrary.source.configMap.uid, value);
      }
      assert.equal(parseSource(text)?.configMap?.uid, value);
    });
  }
});

describe('parseSource', () => {
  it('empty text is the nil source', () => {
    assert.equal(parseSource(''), undefined);
  });

  it('round-trips', () => {
    for (const src of [
      ref,
      withCm({ uid: '0', resourceVersion: 'true' }),
      withCm({ name: 'y', namespace: '2020-01-02' }),
      withCm({ uid: undefined }),
    ]) {
      assert.deepEqual(parseSource(serializeSource(src)), cloneSource(src));
    }
    assert.deepEqual(parseSource(REFERENCE_YAML), ref);
  });

  it('tolerates unknown keys at every level, and other layouts', () => {
    const text = `# written by a newer kubelet
kind: SerializedNodeConfigSource
apiVersion: kubelet.config.k8s.io/v1beta1
extra: {a: 1}
source:
  futureSource: {x: y}
  configMap:
    uid: 'uid'
    name: name
    namespace: namespace
    kubeletConfigKey: kubelet
    resourceVersion: "1"
    newField: [1, 2]
`;
    assert.deepEqual(parseSource(text), ref);
    const json = JSON.stringify({
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'SerializedNodeConfigSource',
      source: ref,
      more: true,
    });
    assert.deepEqual(parseSource(json), ref);
    assert.deepEqual(parseSource(REFERENCE_YAML.replace(/\n/g, '\r\n')), ref);
  });

  it('a null field reads as empty, as encoding/json leaves a Go string', () => {
    assert.deepEqual(
      parseSource(REFERENCE_YAML.replace('uid: uid', 'uid: null')),
      cloneSource(withCm({ uid: undefined })),
    );
  });

  it('an all-nil source is an error', () => {
    for (const text of [
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\n',
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource: {}\n',
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n',
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  futureSource: {a: b}\n',
    ]) {
      assert.throws(
        () => parseSource(text),
        (e: unknown) => e instanceof SourceError && e.code === SourceErrorCodes.AllNil && e.message === ALL_NIL,
        text,
      );
    }
  });

  it('another kind of the kubelet config group fails the cast', () => {
    assert.throws(
      () => parseSource('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n'),
      (e: unknown) =>
        e instanceof SourceError &&
        e.code === SourceErrorCodes.WrongKind &&
        e.message ===
          'failed to cast decoded remote config source to *k8s.io/kubernetes/pkg/kubelet/apis/kubeletconfig.SerializedNodeConfigSource',
    );
  });

  it('undecodable records are decode errors', () => {
    const cases: Array<[string, string]> = [
      [
        'apiVersion: v1\nkind: SerializedNodeConfigSource\n',
        'failed to decode, error: no kind "SerializedNodeConfigSource" is registered for version "v1"',
      ],
      ['kind: SerializedNodeConfigSource\n', "failed to decode, error: Object 'apiVersion' is missing in"],
      ['apiVersion: kubelet.config.k8s.io/v1beta1\n', "failed to decode, error: Object 'Kind' is missing in"],
      [
        REFERENCE_YAML.replace('"1"', '1'),
        'failed to decode, error: json: cannot unmarshal number into Go struct field ConfigMapNodeConfigSource.source.configMap.resourceVersion of type string',
      ],
      [
        REFERENCE_YAML.replace('name: name', 'name: yes'),
        'failed to decode, error: json: cannot unmarshal bool into Go struct field ConfigMapNodeConfigSource.source.configMap.name of type string',
      ],
      ['apiVersion: [', 'failed to decode, error: error converting YAML to JSON: yaml: '],
    ];
    for (const [text, prefix] of cases) {
      assert.throws(
        () => parseSource(text),
        (e: unknown) => e instanceof SourceError && e.code === SourceErrorCodes.Decode && e.message.startsWith(prefix),
        text,
      );
    }
  });
});

describe('start-up cost', () => {
  it('reading records as written does not load the YAML library; other spellings do', () => {
    // In a fresh process, since this test file itself loads the library.
    const sourceModule = fileURLToPath(new URL('../../../src/agent/dynamicconfig/source.js', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      const { parseSource, serializeSource } = await import(${JSON.stringify(sourceModule)});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/node_modules/yaml/'));
      const src = { configMap: { namespace: 'ns', name: 'y', uid: '2020-01-02', resourceVersion: '1', kubeletConfigKey: "it's" } };
      parseSource(serializeSource(src));
      const afterCanonical = loaded();
      parseSource(serializeSource(src).replace('kind:', '# hand-edited\\nkind:'));
      console.log(JSON.stringify([afterCanonical, loaded()]));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.deepEqual(JSON.parse(out), [false, true]);
  });
});

describe('cloneSource', () => {
  it('shares nothing with its input', () => {
    const copy = cloneSource(ref);
    copy.configMap!.name = 'changed';
    assert.equal(ref.configMap!.name, 'name');
    assert.deepEqual(cloneSource({ configMap: null }), {});
  });
});
