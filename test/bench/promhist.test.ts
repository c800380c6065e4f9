// Quantiles of a histogram between two scrapes, as histogram_quantile computes them over increase().

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseBuckets, quantilesBetween } from '../../bench/promhist.js';

const scrape = (get: number[], patch: number[]): string =>
  [
    '# HELP apiserver_request_duration_seconds x',
    '# TYPE apiserver_request_duration_seconds histogram',
    ...['0.1', '0.5', '1', '+Inf'].map(
      (le, i) => `apiserver_request_duration_seconds_bucket{verb="GET",resource="nodes",le="${le}"} ${get[i]}`,
    ),
    ...['0.1', '0.5', '1', '+Inf'].map(
      (le, i) => `apiserver_request_duration_seconds_bucket{verb="PATCH",resource="nodes",le="${le}"} ${patch[i]}`,
    ),
    `apiserver_request_duration_seconds_bucket{verb="PATCH",resource="leases",le="0.1"} 5`,
    `apiserver_request_duration_seconds_bucket{verb="PATCH",resource="leases",le="0.5"} 5`,
    `apiserver_request_duration_seconds_bucket{verb="PATCH",resource="leases",le="1"} 5`,
    `apiserver_request_duration_seconds_bucket{verb="PATCH",resource="leases",le="+Inf"} 5`,
    'apiserver_request_duration_seconds_count{verb="GET",resource="nodes"} 10',
  ].join('\n');

describe('histogram quantiles between scrapes', () => {
  it('subtracts the first scrape, sums the other labels and interpolates within the bucket', () => {
    const before = parseBuckets(scrape([10, 10, 10, 10], [0, 0, 0, 0]), 'apiserver_request_duration_seconds', 'verb');
    const after = parseBuckets(
      scrape([10, 10, 10, 10], [50, 90, 100, 100]),
      'apiserver_request_duration_seconds',
      'verb',
    );
    const q = quantilesBetween(before, after, 0.99);
    assert.equal(q.has('GET'), false, 'no GET between the scrapes');
    // The leases series is the same in both scrapes, so PATCH counts only the 100 new node patches.
    assert.equal(q.get('PATCH')!.count, 100);
    // rank 99 lies in (0.5, 1], which holds 10 requests from cumulative 90: 0.5 + 0.5 × 9/10.
    assert.ok(Math.abs(q.get('PATCH')!.quantile - 0.95) < 1e-9);
  });

  it('answers the highest finite bound when the rank is in +Inf', () => {
    const after = parseBuckets(scrape([0, 0, 0, 4], [0, 0, 0, 0]), 'apiserver_request_duration_seconds', 'verb');
    assert.equal(quantilesBetween(new Map(), after, 0.5).get('GET')!.quantile, 1);
  });
});
