// `dkc server --disable-admission-plugins`, as kube-apiserver's flag: the chain without the plugins named, and an
// unknown name refused at start.

import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { AdmissionPlugin } from '../../src/server/authz.js';
import { ServerConfigError, withoutDisabledPlugins } from '../../src/server/main.js';

const chain: AdmissionPlugin[] = ['NodeRestriction', 'NodeConfigSource', 'NodeConfigPolicy'].map((name) => ({ name }));

it('leaves out the plugins named, keeps the order of the rest, and refuses a name it does not know', () => {
  assert.deepEqual(
    withoutDisabledPlugins(chain, undefined).map((p) => p.name),
    ['NodeRestriction', 'NodeConfigSource', 'NodeConfigPolicy'],
  );
  assert.deepEqual(
    withoutDisabledPlugins(chain, 'NodeConfigPolicy, NodeRestriction').map((p) => p.name),
    ['NodeConfigSource'],
  );
  assert.throws(
    () => withoutDisabledPlugins(chain, 'NodeConfigPolicy,PodSecurity'),
    (err: unknown) => {
      assert.ok(err instanceof ServerConfigError);
      assert.equal(err.message, 'disable-admission-plugins plugin "PodSecurity" is unknown');
      return true;
    },
  );
});
