import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet } from '../../../src/api/apps.js';
import type { PodView } from '../../../src/api/pods.js';
import { revisionName, type Revisions } from '../../../src/controllers/statefulset/identity.js';
import {
  newRevision,
  REVISION_HASH_LABEL,
  resolveRevisions,
  revisionsToTruncate,
  revisionTemplate,
  type ControllerRevision,
} from '../../../src/controllers/statefulset/revisions.js';

const set = (image: string, currentRevision?: string): StatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web', namespace: 'default', uid: 'u-1' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } },
  },
  ...(currentRevision ? { status: { replicas: 0, currentRevision } } : {}),
});

const v1 = newRevision(set('v1'), 1);
const v2 = newRevision(set('v2'), 2);

describe('resolveRevisions', () => {
  const rows: {
    name: string;
    set: StatefulSet;
    owned: ControllerRevision[];
    current: string;
    currentImage: string;
    create?: number;
  }[] = [
    {
      name: 'a new set: its revision is created as 1, current and update',
      set: set('v1'),
      owned: [],
      current: revisionName(set('v1')),
      currentImage: 'v1',
      create: 1,
    },
    {
      name: 'nothing changed: nothing to create',
      set: set('v1', v1.metadata.name),
      owned: [v1],
      current: v1.metadata.name!,
      currentImage: 'v1',
    },
    {
      name: 'a new template: revision 2, the current stays at 1 with its template',
      set: set('v2', v1.metadata.name),
      owned: [v1],
      current: v1.metadata.name!,
      currentImage: 'v1',
      create: 2,
    },
    {
      name: 'back to an existing template: reused',
      set: set('v1', v2.metadata.name),
      owned: [v1, v2],
      current: v2.metadata.name!,
      currentImage: 'v2',
    },
    {
      name: 'the current revision is gone: the update one is current',
      set: set('v2', 'web-gone'),
      owned: [v2],
      current: v2.metadata.name!,
      currentImage: 'v2',
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const got = resolveRevisions(r.set, r.owned);
      assert.equal(got.revisions.update, revisionName(r.set));
      assert.equal(got.revisions.current.name, r.current);
      const containers = got.revisions.current.template.spec?.['containers'] as { image: string }[];
      assert.equal(containers[0]?.image, r.currentImage);
      assert.equal(got.create?.revision, r.create);
      if (got.create) assert.equal(got.create.metadata.name, revisionName(r.set));
    });
  }
});

describe('newRevision', () => {
  it('owned by the set, labelled with the template and its hash, the template to replace', () => {
    assert.deepEqual(
      v1.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]),
      [['StatefulSet', 'web', 'u-1', true]],
    );
    assert.equal(v1.metadata.labels?.['app'], 'web');
    assert.equal(`web-${v1.metadata.labels?.[REVISION_HASH_LABEL]}`, v1.metadata.name);
    assert.equal((v1.data as { spec: { template: { $patch: string } } }).spec.template.$patch, 'replace');
    assert.deepEqual(revisionTemplate(set('v9'), v1), set('v1').spec.template);
  });
});

describe('revisionsToTruncate', () => {
  const rev = (n: number): ControllerRevision => ({ metadata: { name: `web-r${n}` }, revision: n });
  const revs = (...ns: number[]) => ns.map(rev);
  const on = (n: number): PodView => ({ metadata: { labels: { 'controller-revision-hash': `web-r${n}` } } });
  const revisions = (current: number, update: number): Revisions => ({
    current: { name: `web-r${current}`, template: {} },
    update: `web-r${update}`,
  });
  const limited = (limit?: number): StatefulSet => {
    const s = set('v1');
    if (limit !== undefined) s.spec.revisionHistoryLimit = limit;
    return s;
  };
  const rows: {
    name: string;
    set: StatefulSet;
    owned: number[];
    pods: number[];
    cur: number;
    upd: number;
    out: number[];
  }[] = [
    {
      name: 'within the default limit of 10',
      set: limited(),
      owned: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
      pods: [],
      cur: 12,
      upd: 12,
      out: [1],
    },
    { name: 'limit 2: the oldest go', set: limited(2), owned: [5, 1, 3, 2, 4], pods: [], cur: 5, upd: 5, out: [1, 2] },
    {
      name: 'limit 0: every revision no Pod carries',
      set: limited(0),
      owned: [1, 2, 3, 4],
      pods: [2],
      cur: 3,
      upd: 4,
      out: [1],
    },
    {
      name: 'the current and update revisions stay whatever their age',
      set: limited(0),
      owned: [1, 2, 3],
      pods: [],
      cur: 1,
      upd: 3,
      out: [2],
    },
    { name: 'nothing beyond the limit', set: limited(3), owned: [1, 2, 3], pods: [], cur: 3, upd: 3, out: [] },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const got = revisionsToTruncate(r.set, revs(...r.owned), r.pods.map(on), revisions(r.cur, r.upd));
      assert.deepEqual(
        got.map((x) => x.revision),
        r.out,
      );
    });
  }
});
