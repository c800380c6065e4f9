// A bound on config propagation, end to end: a real server and a real agent process under dkc's supervisor; for
// each of several config changes, the time from the PATCH of spec.configSource being acknowledged to
// status.config.active naming the new ConfigMap (which takes a sync, a checkpoint, an exit, a restart and a status
// publish). The bound is generous for a loaded machine (bench/propagation.ts measures the typical figure, well
// under a second), yet a regression to a polling interval or a restart delay of seconds breaks it.

import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { payloadFor, sourceOf, startHarness, type Harness } from './harness.js';
import type { ClusterNode } from '../../../../src/up/cluster.js';
import { waitFor } from '../../../helpers/wait.js';

const CHANGES = 5;
const BOUND_MS = 5_000;

let h: Harness;
let node: ClusterNode;

before(async () => {
  // Each change is a clean exit: more of them in a row than the supervisor's default burst would be spaced out.
  h = await startHarness({ nodes: 1, backoff: { cleanExitBurst: 1_000 } });
  node = h.node('node-1');
  await h.waitForStatus(node, {});
});

after(async () => {
  await h?.stop();
});

it(
  `a config change becomes status.config.active within ${BOUND_MS / 1000} s (max over ${CHANGES} changes)`,
  { timeout: 180_000 },
  async (t) => {
    const took: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const cm = await h.createConfigMap(`propagation-${i}`, {
        kubelet: await payloadFor(node, `eventRecordQPS: ${i + 1}`),
      });
      const want = sourceOf(cm);
      await h.assign(node, { name: cm.metadata.name });
      const t0 = performance.now();
      // Waits past the bound, so that a failure reports how long the change really took.
      await waitFor(
        async () => `change ${i} never became active:\n${await h.logTail(node)}`,
        async () => {
          const s = await h.configStatus(node).catch(() => undefined);
          return s?.active?.configMap.uid === want.configMap.uid &&
            s.active.configMap.resourceVersion === want.configMap.resourceVersion
            ? true
            : undefined;
        },
        { timeoutMs: 30_000, stepMs: 10 },
      );
      took.push(Math.round(performance.now() - t0));
    }
    const max = Math.max(...took);
    t.diagnostic(`propagation times: ${took.join(', ')} ms`);
    assert.ok(max <= BOUND_MS, `propagation took ${took.join(', ')} ms; the slowest exceeds ${BOUND_MS} ms`);
  },
);
