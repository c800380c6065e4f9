import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet } from '../../../src/api/apps.js';
import { revisionName } from '../../../src/controllers/statefulset/identity.js';
import {
  newRevision,
  REVISION_HASH_LABEL,
  resolveRevisions,
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
