// Which assignment the daemon follows when the object that carries it is deleted and made again: a new object that
// assigns nothing (a node may not create one that does) keeps what the node was assigned, until the new object
// assigns something; the object's first sighting, and any assignment, are followed as they are.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decideFollowed, recreateDelayMs, type FollowInput } from '../../src/nodedaemon/recreated.js';

const X = {
  configMap: { namespace: 'kube-system', name: 'x', kubeletConfigKey: 'kubelet', uid: 'cx', resourceVersion: '1' },
};
const Y = { configMap: { namespace: 'kube-system', name: 'y', kubeletConfigKey: 'kubelet' } };

describe('node daemon: an assignment object made again', () => {
  it('keeps the assignment across a re-creation that assigns nothing, and only then', () => {
    const table: [string, FollowInput, ReturnType<typeof decideFollowed>][] = [
      [
        'first sighting, nothing assigned',
        { spec: undefined, uid: 'a', record: undefined, assigned: X },
        { source: undefined, record: { uid: 'a' } },
      ],
      [
        'first sighting, assigned',
        { spec: Y, uid: 'a', record: undefined, assigned: X },
        { source: Y, record: { uid: 'a' } },
      ],
      [
        'the same object, reset',
        { spec: undefined, uid: 'a', record: { uid: 'a' }, assigned: X },
        { source: undefined, record: { uid: 'a' } },
      ],
      [
        'made again, assigning nothing: X stays',
        { spec: undefined, uid: 'b', record: { uid: 'a' }, assigned: X },
        { source: X, record: { uid: 'b', kept: X } },
      ],
      [
        'and after a restart of the daemon',
        { spec: undefined, uid: 'b', record: { uid: 'b', kept: X }, assigned: X },
        { source: X, record: { uid: 'b', kept: X } },
      ],
      [
        'made again once more',
        { spec: undefined, uid: 'c', record: { uid: 'b', kept: X }, assigned: X },
        { source: X, record: { uid: 'c', kept: X } },
      ],
      [
        'then assigned: followed, nothing kept',
        { spec: Y, uid: 'b', record: { uid: 'b', kept: X }, assigned: X },
        { source: Y, record: { uid: 'b' } },
      ],
      [
        'made again on a node that ran its own files',
        { spec: undefined, uid: 'b', record: { uid: 'a' }, assigned: undefined },
        { source: undefined, record: { uid: 'b' } },
      ],
      [
        'made again, assigning',
        { spec: Y, uid: 'b', record: { uid: 'a' }, assigned: X },
        { source: Y, record: { uid: 'b' } },
      ],
      [
        'no uid known',
        { spec: undefined, uid: undefined, record: { uid: 'a' }, assigned: X },
        { source: undefined, record: { uid: 'a' } },
      ],
    ];
    for (const [what, input, want] of table) assert.deepEqual(decideFollowed(input), want, what);
  });

  it('is paced: 500 ms doubling to 10 s', () => {
    assert.deepEqual([0, 1, 2, 4, 5, 30].map(recreateDelayMs), [500, 1000, 2000, 8000, 10_000, 10_000]);
  });
});
