// DeleteOptions and the finalizers a delete leaves, against kube-apiserver's rules
// (staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go: shouldOrphanDependents,
// shouldDeleteDependents, deletionFinalizersForGarbageCollection; apimachinery's ValidateDeleteOptions) and the
// documented cascades (https://kubernetes.io/docs/concepts/architecture/garbage-collection/#cascading-deletion):
// Foreground sets `foregroundDeletion`, Orphan sets `orphan`, Background (every kind's default) sets neither.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/api/errors.js';
import {
  deleteOptionsOf,
  finalizersForDelete,
  preconditionFailure,
  type DeleteOptions,
} from '../../src/server/deletion.js';

describe('finalizersForDelete', () => {
  const rows: [string, string[], DeleteOptions, string[] | undefined][] = [
    ['no options, no finalizers: Background, nothing to set', [], {}, undefined],
    ['Foreground adds foregroundDeletion', [], { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
    ['Orphan adds orphan', ['example.com/hold'], { propagationPolicy: 'Orphan' }, ['example.com/hold', 'orphan']],
    ['orphanDependents=true is Orphan', [], { orphanDependents: true }, ['orphan']],
    ['orphanDependents=false removes orphan', ['orphan'], { orphanDependents: false }, []],
    [
      'Background explicitly removes both',
      ['a.io/x', 'foregroundDeletion'],
      { propagationPolicy: 'Background' },
      ['a.io/x'],
    ],
    ['no policy keeps the one already set (foreground)', ['foregroundDeletion'], {}, undefined],
    ['no policy keeps the one already set (orphan)', ['orphan', 'a.io/x'], {}, undefined],
    [
      'a second delete may switch Foreground to Orphan',
      ['foregroundDeletion'],
      { propagationPolicy: 'Orphan' },
      ['orphan'],
    ],
    ['the same policy again changes nothing', ['a.io/x', 'orphan'], { propagationPolicy: 'Orphan' }, undefined],
    [
      'other finalizers are kept, in order',
      ['b.io/y', 'a.io/x'],
      { propagationPolicy: 'Foreground' },
      ['b.io/y', 'a.io/x', 'foregroundDeletion'],
    ],
  ];
  for (const [what, finalizers, options, want] of rows) {
    it(what, () => assert.deepEqual(finalizersForDelete(finalizers, options), want));
  }
});

describe('deleteOptionsOf', () => {
  const q = (s: string) => new URLSearchParams(s);
  const invalid = (f: () => unknown, message: string) =>
    assert.throws(f, (e: unknown) => e instanceof StatusError && e.code === 422 && e.message === message);

  it('reads the body, else the query (kubectl 1.20 sends a body; curl users a query)', () => {
    assert.deepEqual(
      deleteOptionsOf(
        { kind: 'DeleteOptions', propagationPolicy: 'Foreground', preconditions: { uid: 'u' } },
        q('propagationPolicy=Orphan'),
      ),
      {
        propagationPolicy: 'Foreground',
        preconditions: { uid: 'u' },
      },
    );
    assert.deepEqual(deleteOptionsOf(undefined, q('propagationPolicy=Orphan&gracePeriodSeconds=-5&dryRun=All')), {
      propagationPolicy: 'Orphan',
      gracePeriodSeconds: 1,
      dryRun: true,
    });
    assert.deepEqual(deleteOptionsOf(undefined, q('orphanDependents=false')), { orphanDependents: false });
  });

  it("refuses what ValidateDeleteOptions refuses, in kube-apiserver's words", () => {
    invalid(
      () => deleteOptionsOf({ propagationPolicy: 'Sideways' }, q('')),
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    invalid(
      () => deleteOptionsOf({ propagationPolicy: 'Orphan', orphanDependents: true }, q('')),
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
    );
    assert.throws(
      () => deleteOptionsOf(undefined, q('orphanDependents=maybe')),
      (e: unknown) => e instanceof StatusError && e.code === 400,
    );
  });
});

describe('preconditionFailure', () => {
  it("names the mismatch as kube-apiserver's BeforeDelete does", () => {
    const meta = { uid: 'u1', resourceVersion: '7' };
    assert.equal(preconditionFailure({ preconditions: { uid: 'u1', resourceVersion: '7' } }, meta), undefined);
    assert.equal(
      preconditionFailure({ preconditions: { uid: 'u2' } }, meta),
      'the UID in the precondition (u2) does not match the UID in record (u1). The object might have been deleted and then recreated',
    );
    assert.equal(
      preconditionFailure({ preconditions: { resourceVersion: '6' } }, meta),
      'the ResourceVersion in the precondition (6) does not match the ResourceVersion in record (7). The object might have been modified',
    );
  });
});
