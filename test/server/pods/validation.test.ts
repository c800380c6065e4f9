// A Pod's defaults and validation against kube-apiserver's (pkg/apis/core/v1/defaults.go,
// pkg/apis/core/validation ValidatePodCreate/ValidatePodUpdate): one row per rule, each failing without it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../../src/api/errors.js';
import { defaultPod, preparePodCreate, qosClass } from '../../../src/server/pods/defaults.js';
import { validatePod, validatePodUpdate } from '../../../src/server/pods/validation.js';
import type { PodObject, PodSpec } from '../../../src/server/pods/types.js';

const pod = (spec: PodSpec): PodObject => ({ metadata: { name: 'p', namespace: 'default' }, spec });
const app = { name: 'app', image: 'nginx:1.27' };
const errorsOf = (p: PodObject) => validatePod(p).map(String);
const defaulted = (spec: PodSpec): PodObject => {
  const p = pod(structuredClone(spec));
  defaultPod(p);
  return p;
};

describe('Pod defaults', () => {
  it('fills what the v1 defaulters fill', () => {
    const p = pod({ containers: [{ name: 'a', image: 'nginx', ports: [{ containerPort: 80 }] }] });
    preparePodCreate(p);
    assert.deepEqual(p.spec, {
      containers: [
        {
          name: 'a',
          image: 'nginx',
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'Always',
          resources: {},
        },
      ],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      securityContext: {},
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
      priority: 0,
      preemptionPolicy: 'PreemptLowerPriority',
    });
    assert.deepEqual(p.status, { phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('keeps what is given, and a tagged image pulls IfNotPresent', () => {
    const p = defaulted({ containers: [app], restartPolicy: 'Never', terminationGracePeriodSeconds: 5, priority: 7 });
    assert.equal(p.spec?.restartPolicy, 'Never');
    assert.equal(p.spec?.terminationGracePeriodSeconds, 5);
    assert.equal(p.spec?.priority, 7);
    assert.equal(p.spec?.containers?.[0]?.imagePullPolicy, 'IfNotPresent');
  });

  it('a negative grace period becomes 1', () => {
    assert.equal(
      defaulted({ containers: [app], terminationGracePeriodSeconds: -5 }).spec?.terminationGracePeriodSeconds,
      1,
    );
  });

  it('requests default to limits; quantities are canonical', () => {
    const p = defaulted({
      containers: [{ ...app, resources: { limits: { cpu: '0.5', memory: '1Gi' }, requests: { memory: '512Mi' } } }],
    });
    assert.deepEqual(p.spec?.containers?.[0]?.resources, {
      limits: { cpu: '500m', memory: '1Gi' },
      requests: { memory: '512Mi', cpu: '500m' },
    });
    assert.equal(qosClass(p.spec ?? {}), 'Burstable');
    const g = defaulted({ containers: [{ ...app, resources: { limits: { cpu: '1', memory: '1Gi' } } }] });
    assert.equal(qosClass(g.spec ?? {}), 'Guaranteed');
  });

  it('a quantity that does not parse is a 400 in the decoder’s words', () => {
    assert.throws(
      () => defaulted({ containers: [{ ...app, resources: { limits: { cpu: 'lots' } } }] }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 400 &&
        e.message ===
          `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  });
});

describe('ValidatePodCreate', () => {
  const rows: [string, PodSpec, string[]][] = [
    ['a valid pod', { containers: [app] }, []],
    ['no containers', { containers: [] }, ['spec.containers: Required value']],
    ['container name required', { containers: [{ image: 'x' }] }, ['spec.containers[0].name: Required value']],
    ['image required', { containers: [{ name: 'a' }] }, ['spec.containers[0].image: Required value']],
    [
      'names unique across init and app containers',
      { initContainers: [{ name: 'a', image: 'x' }], containers: [{ name: 'a', image: 'y' }] },
      ['spec.containers[0].name: Duplicate value: "a"'],
    ],
    [
      'name a DNS label',
      { containers: [{ name: 'A_b', image: 'x' }] },
      [
        `spec.containers[0].name: Invalid value: "A_b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      ],
    ],
    [
      'request above limit',
      { containers: [{ ...app, resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } }] },
      ['spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1'],
    ],
    [
      'negative quantity',
      { containers: [{ ...app, resources: { requests: { memory: '-1' } } }] },
      ['spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0'],
    ],
    [
      'unknown resource name',
      { containers: [{ ...app, resources: { limits: { gpu: '1' } } }] },
      [
        'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      ],
    ],
    [
      'restartPolicy',
      { containers: [app], restartPolicy: 'Sometimes' },
      ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
    ],
    [
      'dnsPolicy',
      { containers: [app], dnsPolicy: 'Google' },
      [
        'spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
      ],
    ],
    [
      'activeDeadlineSeconds',
      { containers: [app], activeDeadlineSeconds: 0 },
      ['spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive'],
    ],
    [
      'toleration without key must be Exists',
      { containers: [app], tolerations: [{ operator: 'Equal', value: 'v' }] },
      [
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      ],
    ],
    [
      'tolerationSeconds needs NoExecute',
      {
        containers: [app],
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 5 }],
      },
      [
        'spec.tolerations[0].effect: Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set',
      ],
    ],
    [
      'toleration effect',
      { containers: [app], tolerations: [{ key: 'k', operator: 'Exists', effect: 'Sometimes' }] },
      [
        'spec.tolerations[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      ],
    ],
    [
      'toleration operator',
      { containers: [app], tolerations: [{ key: 'k', operator: 'In' }] },
      ['spec.tolerations[0].operator: Unsupported value: "In": supported values: "Equal", "Exists"'],
    ],
  ];
  for (const [what, spec, want] of rows) it(what, () => assert.deepEqual(errorsOf(defaulted(spec)), want));
});

describe('ValidatePodUpdate', () => {
  const old = defaulted({
    containers: [app],
    activeDeadlineSeconds: 100,
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }],
  });
  old.metadata.resourceVersion = '1';
  const update = (change: (s: PodSpec) => void) => {
    const next = structuredClone(old);
    change(next.spec!);
    return validatePodUpdate(next, old).map(String);
  };
  it('the image may change', () =>
    assert.deepEqual(
      update((s) => (s.containers![0]!.image = 'nginx:1.28')),
      [],
    ));
  it('activeDeadlineSeconds may shrink, not grow or go', () => {
    assert.deepEqual(
      update((s) => (s.activeDeadlineSeconds = 50)),
      [],
    );
    assert.deepEqual(
      update((s) => (s.activeDeadlineSeconds = 200)),
      ['spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value'],
    );
    assert.deepEqual(
      update((s) => delete s.activeDeadlineSeconds),
      ['spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value'],
    );
  });
  it('tolerations may be added, and their tolerationSeconds changed', () => {
    assert.deepEqual(
      update((s) => s.tolerations!.push({ key: 'x', operator: 'Exists' })),
      [],
    );
    assert.deepEqual(
      update((s) => (s.tolerations![0]!.tolerationSeconds = 10)),
      [],
    );
    assert.deepEqual(
      update((s) => (s.tolerations![0]!.key = 'other')),
      ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds'],
    );
  });
  it('anything else is forbidden, with the updatable fields named', () => {
    const errs = update((s) => (s.restartPolicy = 'Never'));
    assert.equal(errs.length, 1);
    assert.ok(
      errs[0]!.startsWith(
        'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
      ),
      errs[0],
    );
    assert.match(errs[0]!, /-  restartPolicy: "Always"\n\+  restartPolicy: "Never"/);
    assert.equal(update((s) => (s.nodeName = 'n1')).length, 1);
  });
});
