// The Deployment controller's host on informers the test feeds: a first sync creates the ReplicaSet `<name>-<hash>`,
// then sets the revision annotation, then writes the status, in that order; a name taken by a ReplicaSet of another
// template is a hash collision, answered by a higher collisionCount and no further writes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ReplicaSet } from '../../../src/api/apps.js';
import { ApiError, type KubeObject, type RestClient } from '../../../src/client/index.js';
import { DeploymentController, DEPLOYMENTS_PATH } from '../../../src/controllers/deployment/controller.js';
import { newReplicaSetFor } from '../../../src/controllers/deployment/decide.js';
import { FakeClock } from '../../helpers/fakeclock.js';
import { waitFor } from '../../helpers/wait.js';
import { fakeInformers, recordingClient, type ClientOverrides } from '../workload/fakeinformers.js';

const deployment = (): Deployment & KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', uid: 'd-1', generation: 1, resourceVersion: '1' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

async function started(overrides: ClientOverrides = {}) {
  const { factory, of } = fakeInformers();
  const { client, writes } = recordingClient(overrides);
  const signal = new AbortController().signal;
  const c = new DeploymentController({
    client: client as RestClient,
    clock: new FakeClock(),
    signal,
    informers: factory,
  });
  await c.start();
  of<Deployment & KubeObject>(DEPLOYMENTS_PATH).deliver(deployment());
  return { c, writes };
}

describe('deployment controller host', () => {
  it('creates the ReplicaSet, then the revision, then the status', async () => {
    const { c, writes } = await started();
    const status = await waitFor('the status written', () => writes.find((w) => w.path.endsWith('/web/status')));
    const rsName = newReplicaSetFor(deployment()).metadata.name;
    assert.deepEqual(
      writes.map((w) => `${w.method} ${w.path}`),
      [
        'POST /apis/apps/v1/namespaces/ns/replicasets',
        'PUT /apis/apps/v1/namespaces/ns/deployments/web',
        'PUT /apis/apps/v1/namespaces/ns/deployments/web/status',
      ],
    );
    const created = writes[0]!.body as ReplicaSet;
    assert.equal(created.metadata.name, rsName);
    assert.equal(created.spec.replicas, 2);
    const annotated = writes[1]!.body as Deployment;
    assert.equal(annotated.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.ok(status.body);
    await c.stop();
  });

  it('counts a hash collision and writes nothing else', async () => {
    const theirs = newReplicaSetFor(deployment());
    theirs.spec.template!.spec = { containers: [{ name: 'c', image: 'other' }] };
    const { c, writes } = await started({
      failCreate: () =>
        new ApiError({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          code: 409,
          reason: 'AlreadyExists',
        }),
      get: () => Promise.resolve({ ...theirs, metadata: { ...theirs.metadata, uid: 'rs-other' } }),
    });
    const status = await waitFor('the collision counted', () => writes.find((w) => w.path.endsWith('/web/status')));
    assert.equal((status.body as Deployment).status?.collisionCount, 1);
    assert.deepEqual(
      writes.map((w) => w.method),
      ['POST', 'PUT'],
      'no revision, no other status',
    );
    await c.stop();
  });

  it('a create refused: Progressing False with the reason, written before the retry', async () => {
    const refused = new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code: 403,
      message: 'quota exceeded',
    });
    const { c, writes } = await started({ failCreate: () => refused });
    const status = await waitFor('the failure written', () => writes.find((w) => w.path.endsWith('/web/status')));
    const progressing = (status.body as Deployment).status?.conditions?.find((x) => x.type === 'Progressing');
    const name = newReplicaSetFor(deployment()).metadata.name ?? '';
    assert.deepEqual(
      [progressing?.status, progressing?.reason, progressing?.message],
      ['False', 'ReplicaSetCreateError', `Failed to create new replica set "${name}": quota exceeded`],
    );
    await c.stop();
  });
});
