// The agent's shutdown sequence: every step runs in order, and a step that hangs (a request to a server that does not
// answer) or fails cannot keep the agent from stopping — `dkc agent` exits to apply a new config, so a stuck step
// would hold up every config change.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runShutdown } from '../../src/agent/agent.js';
import { configureLogging } from '../../src/util/klog.js';

describe('runShutdown', () => {
  it('runs every step in order; a hanging or failing step is left behind after its bound', async () => {
    const lines: string[] = [];
    configureLogging({ sink: (l) => lines.push(l) });
    const ran: string[] = [];
    const started = Date.now();
    try {
      await runShutdown(
        [
          { name: 'flushing events', run: () => new Promise<void>(() => void ran.push('hang')) },
          {
            name: 'stopping node status',
            run: () => {
              ran.push('throw');
              throw new Error('boom');
            },
          },
          { name: 'stopping the listeners', run: async () => void ran.push('ok') },
        ],
        100,
      );
    } finally {
      configureLogging({ sink: (l) => process.stderr.write(l) });
    }
    const took = Date.now() - started;
    assert.deepEqual(ran, ['hang', 'throw', 'ok']);
    assert.ok(took >= 90 && took < 1_000, `took ${took} ms`);
    assert.ok(
      lines.some((l) => l.includes('shutdown: flushing events did not finish within 100 ms; going on without it')),
    );
    assert.ok(lines.some((l) => l.includes('shutdown: stopping node status: boom')));
  });
});
