// The agent parses the kubelet's flags as the kubelet its --kubelet-version names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAgentFlags } from '../../src/agent/flags.js';

test('a later kubelet config flag is accepted with that kubelet, refused with 1.22; the agent keeps its own', () => {
  const at31 = parseAgentFlags(['--kubelet-version', '1.31', '--fail-cgroupv1=false', '--max-pods=9']);
  assert.deepEqual(
    at31.kubelet.given.map((g) => g.name),
    ['fail-cgroupv1', 'max-pods'],
  );
  assert.throws(() => parseAgentFlags(['--fail-cgroupv1=false']), /unknown flag: --fail-cgroupv1/);
  // --register-node is a config flag from 1.23 and the agent's own: it still sets the agent's.
  assert.equal(parseAgentFlags(['--register-node=false', '--kubelet-version=1.30']).registerNode, false);
  assert.equal(parseAgentFlags(['--register-node=false']).registerNode, false);
  assert.throws(
    () => parseAgentFlags(['--kubelet-version=1.24', '--experimental-logging-sanitization']),
    /unknown flag/,
  );
});
