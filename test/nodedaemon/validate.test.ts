// The node daemon's verdict on an assigned config, as a table: valid for the kubelet's minor, then allowed by the
// NodeConfigPolicies that govern the node, judged as admission and the agent judge (the node's own config against the
// candidate, both under the kubelet's published config flags), with the kubelet's files as it reads them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  DroppedFieldsError,
  LoadError,
  NodeFilesError,
  policyError,
  ValidateError,
} from '../../src/api/configstatus.js';
import { droppedFields, unaccepted } from '../../src/nodedaemon/dropped.js';
import { kubeletVersion, parseKubeletFlags, type Layer } from '../../src/kubeletconfig/index.js';
import { configFlagsAnnotation, CONFIG_FLAGS_ANNOTATION, readConfigFlags } from '../../src/nodepolicy/flags.js';
import { readPolicy } from '../../src/nodepolicy/spec.js';
import type { Validation } from '../../src/nodedaemon/decide.js';
import { judgeCandidate, type Candidate, type PolicyContext } from '../../src/nodedaemon/validate.js';

const HEADER = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const OWN = `${HEADER}containerLogMaxFiles: 4\n`;
const layer = (name: string, body: string): Layer => ({ bytes: body, name, dir: '/etc/kubernetes' });
const policy = (name: string, spec: Record<string, unknown>) => ({
  ...readPolicy({ metadata: { name }, spec }),
  selector: [],
});
const FIELDS = policy('fields', { allowedFields: ['eventRecordQPS'] });
const BOUNDS = policy('bounds', { bounds: { maxPods: { maximum: 150 } } });
/** The kubelet's config flags as its Node publishes them. */
const FLAGS = readConfigFlags({
  [CONFIG_FLAGS_ANNOTATION]: configFlagsAnnotation(parseKubeletFlags(['--max-pods=120'])),
});
const DENIED = (...names: string[]) => policyError(names);

/** A replace-mode candidate: the payload becomes the --config file. */
const replace = (payload: string): Candidate => ({
  mode: 'replace',
  payload: { bytes: Buffer.from(payload), name: 'payload' },
  configDir: '/etc/kubernetes',
  dropIns: [],
  dropInName: '90-dkc.conf',
});

/** A dropin-mode candidate over the node's own file and `dropIns` (name, body). */
function dropin(payload: string, dropIns: [string, string][] = []): Candidate {
  return {
    mode: 'dropin',
    payload: { bytes: Buffer.from(payload), name: 'payload' },
    base: layer('/etc/kubernetes/config.yaml', OWN),
    configDir: '/etc/kubernetes',
    dropIns: dropIns.map(([fileName, body]) => ({
      fileName,
      layer: layer(`/etc/kubernetes/conf.d/${fileName}`, body),
    })),
    dropInName: '90-dkc.conf',
  };
}

describe('judgeCandidate: the kubelet minor, then the NodeConfigPolicies that govern the node', () => {
  const kubelet = kubeletVersion('1.31');
  const own = layer('/etc/kubernetes/config.yaml', OWN);
  const rows: [string, Candidate, PolicyContext, Validation][] = [
    [
      'no policy governs: valid is enough',
      dropin(`${HEADER}maxPods: 300\n`),
      { governing: [], ownBase: own, flags: undefined },
      { ok: true },
    ],
    [
      'an allowed field changed',
      dropin(`${HEADER}eventRecordQPS: 7\n`),
      { governing: [FIELDS], ownBase: own, flags: undefined },
      { ok: true },
    ],
    [
      "the node's own values restated are no change",
      dropin(`${OWN}eventRecordQPS: 7\n`),
      { governing: [FIELDS], ownBase: own, flags: undefined },
      { ok: true },
    ],
    [
      'a field outside allowedFields: denied, the policy named, no value quoted',
      dropin(`${HEADER}containerLogMaxFiles: 7\n`),
      { governing: [FIELDS], ownBase: own, flags: undefined },
      {
        ok: false,
        reason: DENIED('fields'),
        detail: 'NodeConfigPolicy "fields": containerLogMaxFiles (not in allowedFields)',
        stage: 'policy',
      },
    ],
    [
      "another drop-in's value is the node's own: no change",
      dropin(`${HEADER}eventRecordQPS: 7\n`, [['10-site.conf', `${HEADER}containerLogMaxFiles: 9\n`]]),
      { governing: [FIELDS], ownBase: own, flags: undefined },
      { ok: true },
    ],
    [
      'every denying policy named, in name order',
      dropin(`${HEADER}maxPods: 300\n`),
      { governing: [FIELDS, BOUNDS], ownBase: own, flags: undefined },
      {
        ok: false,
        reason: DENIED('bounds', 'fields'),
        detail:
          'NodeConfigPolicy "bounds": maxPods (above the maximum 150); NodeConfigPolicy "fields": maxPods (not in allowedFields)',
        stage: 'policy',
      },
    ],
    [
      "a field the kubelet's flags hold is no change, and runs at the flag's value",
      dropin(`${HEADER}maxPods: 300\n`),
      { governing: [FIELDS, BOUNDS], ownBase: own, flags: FLAGS },
      { ok: true },
    ],
    [
      'replace mode: judged against the --config file as the node had it',
      replace(`${OWN}eventRecordQPS: 7\n`),
      { governing: [FIELDS], ownBase: own, flags: undefined },
      { ok: true },
    ],
    [
      'replace mode without the original: the defaults are the baseline',
      replace(`${OWN}eventRecordQPS: 7\n`),
      { governing: [FIELDS], flags: undefined },
      {
        ok: false,
        reason: DENIED('fields'),
        detail: 'NodeConfigPolicy "fields": containerLogMaxFiles (not in allowedFields)',
        stage: 'policy',
      },
    ],
  ];
  for (const [name, candidate, policies, want] of rows)
    it(name, () => assert.deepEqual(judgeCandidate(kubelet, candidate, policies), want));

  it('an invalid config is refused by validation before any policy is asked', () => {
    const v = judgeCandidate(kubelet, dropin(`${HEADER}eventRecordQPS: -1\n`), {
      governing: [FIELDS],
      ownBase: own,
      flags: undefined,
    });
    assert.equal(v.ok ? '' : v.reason, ValidateError);
  });
});

describe("judgeCandidate: the node's own files judged apart", () => {
  const kubelet = kubeletVersion('1.31');
  const NONE = { governing: [], flags: undefined };
  const brokenBase = (payload: string): Candidate => ({
    ...dropin(payload),
    base: layer('/etc/kubernetes/config.yaml', `${HEADER}eventRecordQPS: [1\n`),
  });
  const verdict = (c: Candidate, ownBase?: Layer) => {
    const v = judgeCandidate(kubelet, c, { ...NONE, ownBase: ownBase ?? c.base });
    return v.ok ? 'ok' : `${v.reason}|${v.nodeFiles === true}|${v.stage ?? ''}`;
  };

  it("a --config file that does not decode is the node's fault, not the assignment's", () => {
    const c = brokenBase(`${HEADER}eventRecordQPS: 7\n`);
    assert.equal(verdict(c), `${NodeFilesError}|true|load`);
    const v = judgeCandidate(kubelet, c, { ...NONE, ownBase: c.base });
    assert.match(v.ok ? '' : v.detail, /^the node's own kubelet files do not load or validate, whatever is assigned/);
  });
  it("another drop-in that is invalid is the node's fault too", () => {
    const c = dropin(`${HEADER}eventRecordQPS: 7\n`, [['95-local.conf', `${HEADER}eventRecordQPS: -3\n`]]);
    assert.equal(verdict(c), `${NodeFilesError}|true|validate`);
  });
  it("the node's files valid, the assignment not: the assignment is blamed as before", () => {
    assert.equal(verdict(dropin(`${HEADER}eventRecordQPS: -1\n`)), `${ValidateError}|false|`);
    assert.equal(verdict(dropin(`${HEADER}eventRecordQPS: [1\n`)), `${LoadError}|false|`);
  });
  it("an assignment that makes the node's invalid value valid runs (the node's files are not judged then)", () => {
    const c = {
      ...dropin(`${HEADER}eventRecordQPS: 7\n`),
      base: layer('/etc/kubernetes/config.yaml', `${HEADER}eventRecordQPS: -3\n`),
    };
    assert.equal(verdict(c), 'ok');
  });
});

describe('replace mode: a replacement that leaves out the settings the API server needs to reach the kubelet', () => {
  const kubelet = kubeletVersion('1.31');
  const AUTH = `${HEADER}authentication:\n  anonymous:\n    enabled: false\n  webhook:\n    enabled: true\n  x509:\n    clientCAFile: /etc/kubernetes/pki/ca.crt\nauthorization:\n  mode: Webhook\n`;
  const OWN_AUTH = layer('/etc/kubernetes/config.yaml', `${AUTH}containerLogMaxFiles: 4\n`);
  const judge = (payload: string, accepted?: string, dropIns: [string, string][] = []) =>
    judgeCandidate(
      kubelet,
      {
        ...replace(payload),
        dropIns: dropIns.map(([fileName, body]) => ({ fileName, layer: layer(fileName, body) })),
        ...(accepted !== undefined ? { dropsAccepted: accepted } : {}),
      },
      { governing: [], ownBase: OWN_AUTH, flags: undefined },
    );

  it('a partial replacement is refused before it is written, naming each field it removes', () => {
    const v = judge(`${HEADER}eventRecordQPS: 7\n`);
    assert.deepEqual(v.ok ? undefined : [v.reason, v.stage], [DroppedFieldsError, 'validate']);
    assert.match(
      v.ok ? '' : v.detail,
      /^the replacement leaves out authentication\.anonymous\.enabled, authentication\.webhook\.enabled, authentication\.x509\.clientCAFile, authorization\.mode, set by the node's own config file .*annotate the ConfigMap dkc\.io\/replace-drops-fields: "authentication\.anonymous\.enabled,/,
    );
  });
  it('a replacement that keeps them (other values are a change, not a loss) is valid', () => {
    assert.deepEqual(judge(`${AUTH}eventRecordQPS: 7\n`), { ok: true });
    assert.deepEqual(judge(AUTH.replace('mode: Webhook', 'mode: AlwaysAllow')), { ok: true });
  });
  it('kept by another drop-in is kept', () => {
    assert.deepEqual(judge(`${HEADER}eventRecordQPS: 7\n`, undefined, [['50-auth.conf', AUTH]]), { ok: true });
  });
  it('the ConfigMap accepts what it drops: by field, by prefix, or all; what it does not name is still refused', () => {
    assert.deepEqual(judge(`${HEADER}eventRecordQPS: 7\n`, 'authentication, authorization'), { ok: true });
    assert.deepEqual(judge(`${HEADER}eventRecordQPS: 7\n`, '*'), { ok: true });
    const v = judge(`${HEADER}eventRecordQPS: 7\n`, 'authentication');
    assert.match(v.ok ? '' : v.detail, /^the replacement leaves out authorization\.mode, /);
  });
  it('dropin mode never drops: the node file stays under the drop-in', () => {
    const v = judgeCandidate(
      kubelet,
      { ...dropin(`${HEADER}eventRecordQPS: 7\n`), base: OWN_AUTH },
      { governing: [], ownBase: OWN_AUTH, flags: undefined },
    );
    assert.deepEqual(v, { ok: true });
  });
  it('droppedFields and unaccepted, directly', () => {
    assert.deepEqual(
      droppedFields(`${HEADER}tlsCertFile: /a.crt\ntlsPrivateKeyFile: /a.key\nauthentication:\n  x509: {}\n`, HEADER),
      ['authentication.x509', 'tlsCertFile', 'tlsPrivateKeyFile'],
    );
    assert.deepEqual(
      droppedFields(`${HEADER}authentication:\n  x509:\n    clientCAFile: /ca\n`, `${HEADER}authentication: {}\n`),
      ['authentication.x509.clientCAFile'],
    );
    assert.deepEqual(droppedFields(undefined, HEADER), []);
    assert.deepEqual(unaccepted(['authentication.x509.clientCAFile', 'tlsCertFile'], 'authentication.x509'), [
      'tlsCertFile',
    ]);
    assert.deepEqual(unaccepted(['authenticationX'], 'authentication'), ['authenticationX']);
  });
});
