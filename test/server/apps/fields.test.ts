// The apps/v1 kinds' bodies against their schema, as kube-apiserver's typed decoding reads them: a field the kind
// does not have is dropped and reported, every field of a Pod template is kept, and a value of the wrong JSON type
// is a 400.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import { checkFields } from '../../../src/server/fieldvalidation.js';

const deployment = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'x', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'x' } },
    template: {
      metadata: { labels: { app: 'x' } },
      spec: {
        dnsConfig: { nameservers: ['10.0.0.10'] },
        hostUsers: false,
        containers: [{ name: 'c', image: 'i', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }],
      },
    },
    ...spec,
  },
});

describe('apps/v1 field validation', () => {
  it('drops and reports an unknown field, keeping every Pod template field', () => {
    const obj = deployment({ replicaz: 3 });
    assert.deepEqual(checkFields('apps', 'Deployment', obj, 'Warn'), ['unknown field "spec.replicaz"']);
    assert.deepEqual(obj, deployment({}));
  });

  it('Strict refuses an unknown field', () => {
    assert.throws(
      () => checkFields('apps', 'StatefulSet', { ...deployment({}), kind: 'StatefulSet', extra: 1 }, 'Strict'),
      (err: unknown) =>
        err instanceof StatusError && err.status.code === 400 && /unknown field "extra"/.test(err.message),
    );
  });

  it('a value of the wrong JSON type is a 400', () => {
    assert.throws(
      () => checkFields('apps', 'Deployment', deployment({ replicas: 'three' }), 'Warn'),
      (err: unknown) => err instanceof StatusError && err.status.code === 400 && /replicas/.test(err.message),
    );
  });
});
