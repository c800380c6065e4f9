// Who may write the rollout controller's records: a NodeConfigRollout's status and, on the Node channel, a node's
// revert record annotation. The pure plugin, as the server calls it; through kubectl with token users in
// test/security/rollout-references.e2e.test.ts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REVERT_RECORD_ANNOTATION } from '../../../src/api/dkc/rollout.js';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import { CONTROLLER_USER } from '../../../src/api/dkc/identity.js';
import type { AdmissionAttributes, UserInfo } from '../../../src/server/authz.js';
import { rolloutRecords } from '../../../src/server/auth/rolloutstatus.js';
import { nodes } from '../../../src/server/builtins.js';
import type { ResourceDef } from '../../../src/server/resourcedef.js';

const rollouts = { group: 'dkc.io', plural: 'nodeconfigrollouts', kind: 'NodeConfigRollout' } as ResourceDef;
const user = (name: string, groups: string[] = ['system:authenticated']): UserInfo => ({ name, groups });
const FORGED = { metadata: { name: 'r1' }, status: { phase: 'Reverting' } } as KubeObject;
const annotated = (v?: string): KubeObject => ({
  metadata: { name: 'node-1', ...(v !== undefined ? { annotations: { [REVERT_RECORD_ANNOTATION]: v } } : {}) },
});

function request(
  who: UserInfo,
  resource: ResourceDef,
  subresource: string,
  object: KubeObject,
  oldObject?: KubeObject,
): AdmissionAttributes {
  return {
    user: who,
    operation: oldObject ? 'UPDATE' : 'CREATE',
    resource,
    subresource,
    namespace: '',
    name: object.metadata.name ?? '',
    object,
    ...(oldObject ? { oldObject } : {}),
    dryRun: false,
  };
}

async function verdict(a: AdmissionAttributes): Promise<string> {
  try {
    await rolloutRecords.validate?.(a);
    return 'allowed';
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return `${err.status.code} ${err.status.message}`;
  }
}

describe('RolloutRecords admission', () => {
  it("refuses a write of a rollout's status by anyone but the controller (or a cluster admin)", async () => {
    const old = { metadata: { name: 'r1' }, status: { phase: 'Succeeded' } } as KubeObject;
    assert.equal(
      await verdict(request(user('sam'), rollouts, 'status', FORGED, old)),
      `403 nodeconfigrollouts.dkc.io "r1" is forbidden: the status of a NodeConfigRollout is the rollout controller's ` +
        `record of what it did and decides what it assigns next: only "${CONTROLLER_USER}" may write it`,
    );
    // A node, or a user allowed everything else on rollouts, is no different.
    assert.match(
      await verdict(request(user('system:node:node-1', ['system:nodes']), rollouts, 'status', FORGED, old)),
      /^403 /,
    );
    assert.equal(await verdict(request(user(CONTROLLER_USER), rollouts, 'status', FORGED, old)), 'allowed');
    assert.equal(await verdict(request(user('admin', ['system:masters']), rollouts, 'status', FORGED, old)), 'allowed');
    // The main resource, where status is not written, is RBAC's and the other plugins' to judge.
    assert.equal(await verdict(request(user('sam'), rollouts, '', FORGED, old)), 'allowed');
    assert.equal(await verdict(request(user('sam'), rollouts, '', FORGED)), 'allowed');
  });

  it("refuses setting, changing or removing a Node's revert record annotation by anyone but the controller", async () => {
    const record = JSON.stringify({ configSource: {} });
    const forged = JSON.stringify({
      configSource: { configMap: { namespace: 'victim', name: 'x', kubeletConfigKey: 'k' } },
    });
    const refused = `403 nodes "node-1" is forbidden: metadata.annotations[${REVERT_RECORD_ANNOTATION}] is the rollout controller's revert record: only "${CONTROLLER_USER}" may write it`;
    const node = user('system:node:node-1', ['system:nodes']);
    assert.equal(await verdict(request(node, nodes, '', annotated(forged), annotated(record))), refused);
    assert.equal(await verdict(request(user('pat'), nodes, '', annotated(), annotated(record))), refused);
    assert.equal(await verdict(request(node, nodes, 'status', annotated(forged), annotated())), refused);
    assert.equal(await verdict(request(node, nodes, '', annotated(forged))), refused);
    // Keeping it (a node writing its whole Node back) is no write of it.
    assert.equal(await verdict(request(node, nodes, '', annotated(record), annotated(record))), 'allowed');
    assert.equal(
      await verdict(request(user(CONTROLLER_USER), nodes, '', annotated(forged), annotated(record))),
      'allowed',
    );
  });
});
