// NodeRestriction keeps the node-restriction.kubernetes.io/ labels an administrator's: a node may not set, change or
// remove them on its own Node (upstream's rule for that domain), so that a selector on them is one the node cannot
// steer itself into or out of. Other labels stay the node's to write.

import assert from 'node:assert/strict';
import { it } from 'node:test';
import { StatusError } from '../../../src/api/errors.js';
import type { KubeObject } from '../../../src/api/types.js';
import type { AdmissionAttributes } from '../../../src/server/authz.js';
import { nodeRestriction } from '../../../src/server/auth/noderestriction.js';
import { nodes } from '../../../src/server/builtins.js';

const node = (labels: Record<string, string>): KubeObject => ({ metadata: { name: 'n1', labels } });
const as = (user: string, object: KubeObject, oldObject?: KubeObject): AdmissionAttributes => ({
  user: { name: user, groups: user.startsWith('system:node:') ? ['system:nodes'] : ['system:masters'] },
  operation: oldObject ? 'UPDATE' : 'CREATE',
  resource: nodes,
  subresource: '',
  namespace: '',
  name: 'n1',
  object,
  ...(oldObject ? { oldObject } : {}),
  dryRun: false,
});
const refused = (a: AdmissionAttributes, message: string) =>
  assert.throws(
    () => nodeRestriction(() => undefined).validate!(a),
    (err: unknown) => err instanceof StatusError && err.code === 403 && err.message === message,
  );

it('a node may not add, change or remove a node-restriction.kubernetes.io label; others may, and it may write its other labels', () => {
  const pool = 'node-restriction.kubernetes.io/pool';
  const before = node({ [pool]: 'blue', team: 'a' });
  refused(
    as('system:node:n1', node({ team: 'a' }), before),
    `nodes "n1" is forbidden: is not allowed to modify labels: ${pool}`,
  );
  refused(
    as('system:node:n1', node({ [pool]: 'green', team: 'a' }), before),
    `nodes "n1" is forbidden: is not allowed to modify labels: ${pool}`,
  );
  refused(
    as(
      'system:node:n1',
      node({ [pool]: 'blue', 'x.node-restriction.kubernetes.io/b': '1', 'a.node-restriction.kubernetes.io/c': '' }),
      before,
    ),
    'nodes "n1" is forbidden: is not allowed to modify labels: a.node-restriction.kubernetes.io/c, x.node-restriction.kubernetes.io/b',
  );
  refused(
    as('system:node:n1', node({ [pool]: 'blue' })),
    `nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: ${pool}`,
  );
  assert.equal(
    nodeRestriction(() => undefined).validate!(
      as(
        'system:node:n1',
        node({ [pool]: 'blue', team: 'b', 'node-restriction.kubernetes.io.example/x': '1' }),
        before,
      ),
    ),
    undefined,
  );
  assert.equal(nodeRestriction(() => undefined).validate!(as('admin', node({}), before)), undefined);
});
