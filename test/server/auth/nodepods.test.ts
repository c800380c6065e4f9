import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodePodRefusal } from '../../../src/server/auth/nodepods.js';
import type { AdmissionAttributes } from '../../../src/server/authz.js';
import { defaultRegistry } from '../../../src/server/registry.js';

const podsDef = defaultRegistry().lookup('', 'v1', 'pods')!;
const bound = (nodeName: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', annotations },
  spec: { nodeName },
});
const req = (operation: AdmissionAttributes['operation'], subresource = '', object?: unknown): AdmissionAttributes => ({
  user: { name: 'system:node:node-1', groups: ['system:nodes'] },
  operation,
  resource: podsDef,
  subresource,
  namespace: 'default',
  name: 'p',
  ...(object ? { object: object as NonNullable<AdmissionAttributes['object']> } : {}),
  dryRun: false,
});

test("NodeRestriction on Pods: a node writes only what it runs, in upstream's words", () => {
  const rows: [string, AdmissionAttributes, unknown, string | undefined][] = [
    ['delete its own', req('DELETE'), bound('node-1'), undefined],
    [
      'delete another node’s',
      req('DELETE'),
      bound('node-2'),
      'node "node-1" can only delete pods with spec.nodeName set to itself',
    ],
    [
      'delete an unbound one',
      req('DELETE'),
      bound(''),
      'node "node-1" can only delete pods with spec.nodeName set to itself',
    ],
    ['status of its own', req('UPDATE', 'status'), bound('node-1'), undefined],
    [
      'status of another',
      req('UPDATE', 'status'),
      bound('node-2'),
      'node "node-1" can only update pod status for pods with spec.nodeName set to itself',
    ],
    ['evict its own', req('CREATE', 'eviction'), bound('node-1'), undefined],
    [
      'evict another',
      req('CREATE', 'eviction'),
      bound('node-2'),
      'node "node-1" can only evict pods with spec.nodeName set to itself',
    ],
    [
      'create a mirror Pod on itself',
      req('CREATE', '', bound('node-1', { 'kubernetes.io/config.mirror': 'x' })),
      undefined,
      undefined,
    ],
    [
      'create a plain Pod',
      req('CREATE', '', bound('node-1')),
      undefined,
      'pod does not have "kubernetes.io/config.mirror" annotation, node "node-1" can only create mirror pods',
    ],
    [
      'create a mirror Pod elsewhere',
      req('CREATE', '', bound('node-2', { 'kubernetes.io/config.mirror': 'x' })),
      undefined,
      'node "node-1" can only create pods with spec.nodeName set to itself',
    ],
    [
      'update a Pod',
      req('UPDATE'),
      bound('node-1'),
      'unexpected operation "UPDATE", node "node-1" can only create and delete mirror pods',
    ],
  ];
  for (const [name, a, pod, want] of rows) assert.equal(nodePodRefusal(a, 'node-1', pod), want, name);
});
