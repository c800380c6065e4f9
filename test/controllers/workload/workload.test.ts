// The pieces every workload controller shares: ControllerRefManager's claim, slow-start batches, the template
// hash in kube's safe alphabet, and the Pod made from a template.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { objectSelectorRequirements } from '../../../src/api/selectors.js';
import { adoptPatch, claim, newControllerRef, releasePatch } from '../../../src/controllers/workload/controllerref.js';
import { podFromTemplate, podsPrefix } from '../../../src/controllers/workload/podtemplate.js';
import { slowStartBatches } from '../../../src/controllers/workload/slowstart.js';
import { computeHash, safeEncode, SAFE_ALPHABET } from '../../../src/controllers/workload/templatehash.js';

const sel = objectSelectorRequirements({ matchLabels: { app: 'web' } });
const obj = (name: string, labels: Record<string, string>, ctrl?: string, deleting = false) => ({
  metadata: {
    name,
    uid: `u-${name}`,
    namespace: 'ns',
    labels,
    ...(ctrl
      ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: ctrl, uid: ctrl, controller: true }] }
      : {}),
    ...(deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}),
  },
});

describe('claim', () => {
  const objects = [
    obj('mine', { app: 'web' }, 'rs1'),
    obj('mine-relabelled', { app: 'db' }, 'rs1'),
    obj('orphan', { app: 'web' }),
    obj('orphan-other', { app: 'db' }),
    obj('orphan-deleting', { app: 'web' }, undefined, true),
    obj('theirs', { app: 'web' }, 'rs2'),
  ];
  const names = (xs: { metadata: { name: string } }[]) => xs.map((x) => x.metadata.name);

  it('owns what it controls and matches, adopts matching orphans, releases what no longer matches', () => {
    const c = claim({ uid: 'rs1', namespace: 'ns', deleting: false }, sel, objects);
    assert.deepEqual(names(c.owned), ['mine', 'orphan']);
    assert.deepEqual(names(c.adopt), ['orphan']);
    assert.deepEqual(names(c.release), ['mine-relabelled']);
  });

  it('an owner being deleted adopts and releases nothing', () => {
    const c = claim({ uid: 'rs1', namespace: 'ns', deleting: true }, sel, objects);
    assert.deepEqual(names(c.owned), ['mine']);
    assert.deepEqual(c.adopt, []);
    assert.deepEqual(c.release, []);
  });

  it('never adopts across namespaces', () => {
    const c = claim({ uid: 'rs1', namespace: 'other', deleting: false }, sel, objects);
    assert.deepEqual(c.adopt, []);
  });

  it('patches as kube does', () => {
    const ref = newControllerRef('apps/v1', 'ReplicaSet', { metadata: { name: 'rs', uid: 'rs1' } });
    assert.deepEqual(ref, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'rs',
      uid: 'rs1',
      controller: true,
      blockOwnerDeletion: true,
    });
    assert.deepEqual(adoptPatch(ref, 'p1'), { metadata: { ownerReferences: [ref], uid: 'p1' } });
    assert.deepEqual(releasePatch('rs1', 'p1'), {
      metadata: { ownerReferences: [{ $patch: 'delete', uid: 'rs1' }], uid: 'p1' },
    });
  });
});

describe('slowStartBatches', () => {
  it('doubles from one, the last batch what remains', () => {
    assert.deepEqual(slowStartBatches(0), []);
    assert.deepEqual(slowStartBatches(1), [1]);
    assert.deepEqual(slowStartBatches(7), [1, 2, 4]);
    assert.deepEqual(slowStartBatches(10), [1, 2, 4, 3]);
    assert.deepEqual(slowStartBatches(500), [1, 2, 4, 8, 16, 32, 64, 128, 245]);
  });
});

describe('computeHash', () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } };

  it('spells decimal digits in the safe alphabet as rand.SafeEncodeString does', () => {
    assert.equal(safeEncode('0123456789'), '456789bcdf');
    for (const c of computeHash(template)) assert.ok(SAFE_ALPHABET.includes(c));
  });

  it('is stable across key order and changes with the template or the collision count', () => {
    const reordered = { spec: { containers: [{ image: 'nginx:1', name: 'c' }] }, metadata: { labels: { app: 'web' } } };
    assert.equal(computeHash(reordered), computeHash(template));
    const changed = { ...template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } };
    assert.notEqual(computeHash(changed), computeHash(template));
    assert.notEqual(computeHash(template, 1), computeHash(template));
    assert.notEqual(computeHash(template, 1), computeHash(template, 2));
  });
});

describe('podFromTemplate', () => {
  it("copies the template's labels, annotations, finalizers and spec and names the controller", () => {
    const ref = newControllerRef('apps/v1', 'ReplicaSet', { metadata: { name: 'web', uid: 'u' } });
    const template = {
      metadata: { labels: { app: 'web' }, annotations: { a: 'b' }, finalizers: ['f'] },
      spec: { containers: [{ name: 'c' }] },
    };
    const pod = podFromTemplate(template, 'web', 'ns', ref);
    assert.deepEqual(pod, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: 'web-',
        namespace: 'ns',
        labels: { app: 'web' },
        annotations: { a: 'b' },
        finalizers: ['f'],
        ownerReferences: [ref],
      },
      spec: { containers: [{ name: 'c' }] },
    });
    pod.spec['containers'] = [];
    assert.equal(template.spec.containers.length, 1, 'the template is not shared with the Pod');
  });

  it('a prefix longer than a DNS subdomain is the name alone', () => {
    assert.equal(podsPrefix('a'.repeat(253)), 'a'.repeat(253));
    assert.equal(podsPrefix('a'.repeat(252)), `${'a'.repeat(252)}-`);
  });
});
