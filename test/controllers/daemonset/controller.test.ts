// The DaemonSet controller's host on informers the test feeds: a daemon Pod per node, pinned to it; a failed one
// deleted with kube's FailedDaemonPod event and replaced, and the next failure on that node left in place until the
// node's backoff has passed on the controller's clock (kube's failedPodsBackoff).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet } from '../../../src/api/apps.js';
import type { Node } from '../../../src/api/types.js';
import type { Pod } from '../../../src/api/workloads.js';
import type { KubeObject, RestClient } from '../../../src/client/index.js';
import { DaemonSetController, DAEMONSETS_PATH } from '../../../src/controllers/daemonset/controller.js';
import { FakeClock } from '../../helpers/fakeclock.js';
import { waitFor } from '../../helpers/wait.js';
import { fakeInformers, recordingClient } from '../workload/fakeinformers.js';

type PodObj = Pod & KubeObject;

const ds = (name: string): DaemonSet & KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name, namespace: 'ns', uid: `ds-${name}`, generation: 1, resourceVersion: '1' },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'pause' }] } },
  },
});

describe('daemonset controller host', () => {
  it('deletes a failed daemon Pod, and the next on its node only after the backoff', async () => {
    const { factory, of } = fakeInformers();
    const events: { reason?: string; message?: string }[] = [];
    const { client, writes } = recordingClient();
    const recording = client as RestClient;
    const create = recording.create.bind(recording);
    recording.create = (path: string, body: unknown) => {
      if (path.endsWith('/events')) events.push(body as { reason?: string; message?: string });
      return create(path, body);
    };
    const clock = new FakeClock();
    const c = new DaemonSetController({
      client: recording,
      clock,
      signal: new AbortController().signal,
      informers: factory,
    });
    await c.start();
    const nodes = of<Node & KubeObject>('/api/v1/nodes');
    const pods = of<PodObj>('/api/v1/pods');
    const dss = of<DaemonSet & KubeObject>(DAEMONSETS_PATH);
    const createsOf = (name: string) =>
      writes.filter((w) => w.method === 'POST' && (w.body as PodObj).metadata.generateName === `${name}-`);

    nodes.deliver({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-1', resourceVersion: '1' } });
    dss.deliver(ds('agent'));
    await waitFor('the daemon Pod created', () => createsOf('agent').length === 1);
    const made = createsOf('agent')[0]!.body as PodObj;
    const pinned = made.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    assert.deepEqual(pinned?.nodeSelectorTerms, [
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n-1'] }] },
    ]);

    const failing = (body: unknown, name: string, rv: string): PodObj => {
      const p = structuredClone(body) as PodObj;
      p.metadata = { ...p.metadata, name, uid: `uid-${name}`, resourceVersion: rv };
      p.spec = { ...p.spec!, nodeName: 'n-1' };
      p.status = { phase: 'Failed' };
      return p;
    };
    const deleted = (name: string) =>
      writes.some((w) => w.method === 'DELETE' && w.path === `/api/v1/namespaces/ns/pods/${name}`);
    const first = failing(made, 'agent-x', '5');
    pods.deliver(first);
    await waitFor('the failed Pod deleted', () => deleted('agent-x'));
    await waitFor('the FailedDaemonPod event', () =>
      events.some(
        (e) =>
          e.reason === 'FailedDaemonPod' &&
          e.message === 'Found failed daemon pod ns/agent-x on node n-1, will try to kill it',
      ),
    );
    pods.remove(first);
    await waitFor('a new daemon Pod', () => createsOf('agent').length === 2);

    // The new one fails within the second: it stays until the node's backoff has passed.
    const second = failing(createsOf('agent')[1]!.body, 'agent-y', '7');
    pods.deliver(second);
    // A second DaemonSet, synced after the first, marks when the worker is past the first's sync.
    dss.deliver(ds('marker'));
    await waitFor('the marker created', () => createsOf('marker').length === 1);
    assert.equal(deleted('agent-y'), false, 'the node is backing off');
    clock.advance(999);
    dss.deliver(ds('marker2'));
    await waitFor('the second marker created', () => createsOf('marker2').length === 1);
    assert.equal(deleted('agent-y'), false, 'still backing off');
    clock.advance(1);
    await waitFor('the failed Pod deleted once the second has passed', () => deleted('agent-y'));
    await c.stop();
  });
});
