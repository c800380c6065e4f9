// The agent's config flags as its Node records them, and the one comparison everyone makes of a node's config with a
// target: both with the flags applied, so that a field a flag holds is never a change.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { load, parseKubeletFlags, type KubeletConfiguration } from '../../src/kubeletconfig/index.js';
import {
  CONFIG_FLAGS_ANNOTATION,
  configChanges,
  configFlagsAnnotation,
  effectiveChange,
  readConfigFlags,
} from '../../src/nodepolicy/flags.js';

const config = (yaml: string): KubeletConfiguration =>
  load(`apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${yaml}`).config;
const DKC_UP = [
  '--address=127.0.0.1',
  '--port=36001',
  '--healthz-port=36002',
  '--healthz-bind-address=127.0.0.1',
  '--feature-gates=DynamicKubeletConfig=true',
];
const recorded = (argv: string[]) =>
  readConfigFlags({ [CONFIG_FLAGS_ANNOTATION]: configFlagsAnnotation(parseKubeletFlags(argv)) });

describe('the config-flags record', () => {
  it('holds the config flags in command-line order and reads back as the same flags', () => {
    const text = configFlagsAnnotation(parseKubeletFlags([...DKC_UP, '--max-pods', '50']));
    assert.equal(text, JSON.stringify({ flags: [...DKC_UP, '--max-pods=50'] }));
    assert.deepEqual(
      readConfigFlags({ [CONFIG_FLAGS_ANNOTATION]: text })?.given.given.map((g) => g.field),
      ['address', 'port', 'healthzPort', 'healthzBindAddress', 'featureGates', 'maxPods'],
    );
  });

  it('names a flag that may carry a credential without its value', () => {
    const text = configFlagsAnnotation(
      parseKubeletFlags(['--manifest-url-header=Authorization:Bearer secret', '--port=1']),
    );
    assert.ok(!text.includes('secret'), text);
    assert.deepEqual(JSON.parse(text), { flags: ['--port=1'], withheld: ['--manifest-url-header'] });
    assert.deepEqual(readConfigFlags({ [CONFIG_FLAGS_ANNOTATION]: text })?.withheld, ['staticPodURLHeader']);
  });

  it('no record, or one that does not read as flags: none (every field then compares as it is)', () => {
    for (const text of [
      undefined,
      'not json',
      '{}',
      '{"flags":"--port=1"}',
      '{"flags":["--port=x"]}',
      '{"flags":["--no-such-flag=1"]}',
      '{"flags":[],"withheld":["--nope"]}',
    ]) {
      assert.equal(
        readConfigFlags(text === undefined ? {} : { [CONFIG_FLAGS_ANNOTATION]: text }),
        undefined,
        String(text),
      );
    }
  });
});

describe('effectiveChange', () => {
  const local = config('authorization:\n  mode: Webhook\n');
  /** What /configz answers for a node started with DKC_UP over `local`. */
  const running = effectiveChange(local, local, recorded(DKC_UP)).before;
  const fleetWide = config('authorization:\n  mode: Webhook\neventRecordQPS: 7\n');

  it('a fleet-wide config (the local file plus one field) changes that field only, on the effective config or the file', () => {
    assert.deepEqual(
      configChanges(running, fleetWide, recorded(DKC_UP)).map((c) => [c.path, c.old, c.new]),
      [['eventRecordQPS', 5, 7]],
    );
    assert.deepEqual(
      configChanges(local, fleetWide, recorded(DKC_UP)).map((c) => c.path),
      ['eventRecordQPS'],
      'flags applied to both sides',
    );
  });

  it('without the record the flags show as changes (what a node without one gets: more, never fewer)', () => {
    assert.deepEqual(
      configChanges(running, fleetWide, undefined).map((c) => c.path),
      ['address', 'port', 'eventRecordQPS', 'healthzPort', 'featureGates.DynamicKubeletConfig'],
    );
  });

  it('--feature-gates holds the gates it names; the others come from the config', () => {
    const gated = config('featureGates:\n  DynamicKubeletConfig: false\n  CPUManager: false\n');
    const { after } = effectiveChange(running, gated, recorded(DKC_UP));
    assert.deepEqual(after.featureGates, { CPUManager: false, DynamicKubeletConfig: true });
    assert.deepEqual(
      configChanges(running, gated, recorded(DKC_UP)).map((c) => c.path),
      ['featureGates.CPUManager'],
    );
  });

  it('a withheld flag holds its field at the running value, whatever the target says', () => {
    const flags = recorded(['--manifest-url-header=Authorization:Bearer secret']);
    const withHeader = effectiveChange(config(''), config(''), {
      given: parseKubeletFlags(['--manifest-url-header=Authorization:Bearer secret']),
      withheld: [],
    }).before;
    const target = config('staticPodURLHeader:\n  Authorization: ["Bearer other"]\nmaxPods: 10\n');
    assert.deepEqual(
      configChanges(withHeader, target, flags).map((c) => c.path),
      ['maxPods'],
    );
  });
});
