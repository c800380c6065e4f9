// PodDisruptionBudgets served as kube-apiserver serves them: policy/v1 and v1beta1 over one storage, an empty
// status and generation 1 on create, status only through /status, kube's validation messages, the printers' columns,
// and one discovery entry for the policy group.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startInProcessServer, type InProcessServer } from '../helpers/inprocessserver.js';
import { validateBudget, validateIntOrPercent } from '../../src/server/disruptionbudgets/validation.js';
import type { PodDisruptionBudget } from '../../src/api/workloads.js';

const v1 = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
const v1beta1 = '/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets';
const pdb = (name: string, spec: Record<string, unknown>) => ({ metadata: { name }, spec });
const message = (body: string) => (JSON.parse(body) as { message: string }).message;

describe('PodDisruptionBudget validation', () => {
  const rows: { value: number | string; error?: string }[] = [
    { value: 0 },
    { value: '100%' },
    { value: -1, error: 'x: Invalid value: -1: must be greater than or equal to 0' },
    {
      value: '150%',
      error: 'x: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
    },
    {
      value: 'half',
      error: `x: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"half"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
    },
  ];
  for (const r of rows)
    it(`minAvailable ${JSON.stringify(r.value)}`, () =>
      assert.deepEqual(validateIntOrPercent(r.value, 'x').map(String), r.error ? [r.error] : []));

  it('the selector and the eviction policy', () => {
    const bad = {
      metadata: { name: 'p', namespace: 'default' },
      spec: {
        selector: { matchExpressions: [{ key: 'app', operator: 'In' }] },
        unhealthyPodEvictionPolicy: 'Sometimes',
      },
    } as PodDisruptionBudget;
    assert.deepEqual(validateBudget(bad).map(String), [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.unhealthyPodEvictionPolicy: Unsupported value: "Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ]);
  });
});

describe('poddisruptionbudgets', () => {
  let s: InProcessServer;
  before(async () => (s = await startInProcessServer('pdb')));
  after(async () => s.close());

  it('create: generation 1 and the empty status, whatever the client sent', async () => {
    const created = await s.json<PodDisruptionBudget>('POST', v1, {
      body: {
        ...pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }),
        status: { disruptionsAllowed: 5 },
      },
    });
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  });

  it('both minAvailable and maxUnavailable is a 422 in kube’s words', async () => {
    const r = await s.call('POST', v1, { body: pdb('both', { minAvailable: 1, maxUnavailable: 1 }) });
    assert.equal(r.status, 422);
    assert.equal(
      message(r.body),
      'PodDisruptionBudget.policy "both" is invalid: spec: Invalid value: policy.PodDisruptionBudgetSpec{…}: minAvailable and maxUnavailable cannot be both set',
    );
  });

  it('status through /status only, counts not negative; a spec change moves generation', async () => {
    const path = `${v1}/web/status`;
    const current = await s.json<PodDisruptionBudget>('GET', `${v1}/web`);
    const status = { ...current.status!, disruptionsAllowed: 1, observedGeneration: 1 };
    const written = await s.json<PodDisruptionBudget>('PUT', path, { body: { ...current, status } });
    assert.equal(written.status?.disruptionsAllowed, 1);
    const negative = await s.call('PUT', path, { body: { ...written, status: { ...status, currentHealthy: -1 } } });
    assert.equal(negative.status, 422);
    assert.match(
      message(negative.body),
      /status.currentHealthy: Invalid value: -1: must be greater than or equal to 0/,
    );
    const spec = await s.json<PodDisruptionBudget>('PATCH', `${v1}/web`, {
      body: { spec: { minAvailable: 2 }, status: { disruptionsAllowed: 9 } },
      contentType: 'application/merge-patch+json',
    });
    assert.deepEqual([spec.metadata.generation, spec.status?.disruptionsAllowed], [2, 1]);
  });

  it('policy/v1beta1 serves the same objects as its own version', async () => {
    const got = await s.json<PodDisruptionBudget>('GET', `${v1beta1}/web`);
    assert.equal(got.apiVersion, 'policy/v1beta1');
    assert.equal(got.spec?.minAvailable, 2);
  });

  it('a Table with the printers’ columns', async () => {
    const table = await s.json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>('GET', v1, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age'],
    );
    assert.deepEqual(table.rows[0]?.cells.slice(0, 4), ['web', '2', 'N/A', 1]);
  });

  it('discovery: one policy group, v1 preferred, v1beta1 too', async () => {
    const list = await s.json<{
      groups: { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[];
    }>('GET', '/apis');
    const policy = list.groups.filter((g) => g.name === 'policy');
    assert.equal(policy.length, 1);
    assert.deepEqual(
      policy[0]?.versions.map((v) => v.version),
      ['v1', 'v1beta1'],
    );
    assert.equal(policy[0]?.preferredVersion.version, 'v1');
    const group = await s.json<{ versions: unknown[]; preferredVersion: { version: string } }>('GET', '/apis/policy');
    assert.deepEqual([group.versions.length, group.preferredVersion.version], [2, 'v1']);
  });
});
