// `dkc rollout list` lays out the CRD's printer columns as kubectl does.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { layout, renderTable } from '../../../src/workflow/rollout/table.js';

describe('renderTable', () => {
  it("aligns the printer columns like kubectl's tabwriter, sorted by name, blank where there is no status yet", () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    const text = renderTable(
      [
        { metadata: { name: 'new', creationTimestamp: '2026-01-01T00:09:55Z' }, spec: {} },
        {
          metadata: { name: 'max-pods-50', creationTimestamp: '2026-01-01T00:00:00Z' },
          spec: {},
          status: { phase: 'Succeeded', targetNodes: 3, updatedNodes: 3, succeededNodes: 3, failedNodes: 0 },
        },
      ],
      now,
    );
    assert.equal(
      text,
      'NAME          PHASE       TARGET   UPDATED   SUCCEEDED   FAILED   AGE\n' +
        'max-pods-50   Succeeded   3        3         3           0        10m\n' +
        'new                                                               5s\n',
    );
  });

  it('gives every column but the last at least 6 characters, 3 of them padding', () => {
    assert.equal(
      layout([
        ['A', 'B', 'C'],
        ['abcd', 'x', 'yyyyyyyyy'],
      ]),
      'A      B     C\nabcd   x     yyyyyyyyy\n',
    );
    assert.equal(renderTable([], 0), '');
  });
});
