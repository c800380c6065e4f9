// The ReplicaSet controller's host on informers the test feeds: while its watch has not shown the Pods it created,
// another sync of the ReplicaSet creates none (kube's expectations); once they are seen the status counts them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet } from '../../../src/api/apps.js';
import type { KubeObject, RestClient } from '../../../src/client/index.js';
import { ReplicaSetController, REPLICASETS_PATH } from '../../../src/controllers/replicaset/controller.js';
import { FakeClock } from '../../helpers/fakeclock.js';
import { waitFor } from '../../helpers/wait.js';
import { fakeInformers, recordingClient } from '../workload/fakeinformers.js';

type Obj = KubeObject & { metadata: { uid?: string; resourceVersion?: string } };

const rs = (name: string, replicas: number, resourceVersion = '1'): ReplicaSet & KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: 'ns', uid: `rs-${name}`, generation: 1, resourceVersion },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'pause' }] } },
  },
});

describe('replicaset controller host', () => {
  it('creates no second round before its watch shows the first', async () => {
    const { factory, of } = fakeInformers();
    const { client, writes } = recordingClient();
    const signal = new AbortController().signal;
    const c = new ReplicaSetController({
      client: client as RestClient,
      clock: new FakeClock(),
      signal,
      informers: factory,
    });
    await c.start();
    const rss = of<ReplicaSet & KubeObject>(REPLICASETS_PATH);
    const pods = of<Obj>('/api/v1/pods');
    const createsOf = (name: string) =>
      writes.filter((w) => w.method === 'POST' && (w.body as Obj).metadata.generateName === `${name}-`);

    rss.deliver(rs('web', 3));
    await waitFor('three creates', () => createsOf('web').length === 3);
    // The ReplicaSet changes again before any of its Pods is seen; a second ReplicaSet, synced after it, marks
    // when the worker is past that sync.
    rss.deliver(rs('web', 3, '2'));
    rss.deliver(rs('marker', 1));
    await waitFor('the marker created', () => createsOf('marker').length === 1);
    assert.equal(createsOf('web').length, 3, 'the unseen Pods are not created again');

    let i = 0;
    for (const w of createsOf('web')) {
      const pod = structuredClone(w.body) as Obj;
      pod.metadata = { ...pod.metadata, name: `web-${++i}`, uid: `p-${i}`, resourceVersion: String(10 + i) };
      pods.deliver(pod);
    }
    const status = await waitFor('the status counting 3', () =>
      writes.find((w) => w.path.endsWith('/replicasets/web/status') && (w.body as ReplicaSet).status?.replicas === 3),
    );
    assert.ok(status);
    assert.equal(createsOf('web').length, 3);
    await c.stop();
  });
});
