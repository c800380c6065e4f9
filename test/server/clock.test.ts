// The API server reads the time only from the clock it is given: objects' creation and deletion timestamps,
// managedFields' times, a CustomResourceDefinition's condition times and the AGE of table rows, in lists as in
// watches, all follow a fake clock that moves only when the test says so.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../helpers/fakeclock.js';
import { widgetCrd } from '../helpers/crds.js';
import { startInProcessServer, type InProcessServer } from '../helpers/inprocessserver.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const clock = new FakeClock(Date.UTC(2024, 0, 15, 10, 0, 0));
let api: InProcessServer;

interface Obj {
  metadata: {
    name: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    managedFields?: { time?: string }[];
  };
  status?: { conditions?: { type: string; lastTransitionTime: string }[] };
}
interface Table {
  rows: { cells: unknown[]; object: { metadata: { name: string } } }[];
}

const json = <T>(...args: Parameters<InProcessServer['json']>): Promise<T> => api.json<T>(...args);

before(async () => {
  api = await startInProcessServer('serverclock', { clock });
});

after(async () => {
  await api?.close();
});

describe('the API server on its clock', () => {
  const configMaps = '/api/v1/namespaces/default/configmaps';

  it('stamps creation, managedFields and deletion with its time', async () => {
    const body = { metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    const created = await json<Obj>('POST', configMaps, { body });
    assert.equal(created.metadata.creationTimestamp, '2024-01-15T10:00:00Z');
    assert.equal(created.metadata.managedFields?.[0]?.time, '2024-01-15T10:00:00Z');
    clock.advance(90_000);
    const deleting = await json<Obj>('DELETE', `${configMaps}/held`);
    assert.equal(deleting.metadata.deletionTimestamp, '2024-01-15T10:01:30Z');
  });

  it('ages table rows by its time, in a list and in a watch', async () => {
    await json('POST', configMaps, { body: { metadata: { name: 'aged' } } });
    clock.advance(5 * 60_000);
    const ageOf = (t: Table) => t.rows.find((r) => r.object.metadata.name === 'aged')?.cells[2];
    assert.equal(ageOf(await json<Table>('GET', configMaps, { accept: TABLE })), '5m');
    const watch = `${configMaps}?watch=true&fieldSelector=metadata.name%3Daged`;
    const event = await json<{ object: Table }>('GET', watch, { accept: TABLE, firstLine: true });
    assert.equal(ageOf(event.object), '5m');
  });

  it("times a CustomResourceDefinition's conditions by its time", async () => {
    const created = await json<Obj>('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: widgetCrd,
    });
    const conditions = created.status?.conditions ?? [];
    assert.ok(
      conditions.some((c) => c.type === 'Established'),
      JSON.stringify(conditions),
    );
    for (const c of conditions) assert.equal(c.lastTransitionTime, '2024-01-15T10:06:30Z', c.type);
  });
});
