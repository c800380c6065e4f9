// Whether an assigned config is one the node's kubelet will accept, judged as that kubelet reads its files: with
// `--apply-as dropin`, the node's own --config file with every drop-in of --config-dir merged over it in file-name
// order, the daemon's own drop-in among them; with `replace`, the assigned config as the --config file under the same
// drop-ins. Decode, defaults, the minor's validation and its start-up checks. Then whether the NodeConfigPolicies
// that govern the node allow it: the node's own config (its files as they were before dkc, the same drop-ins) against
// the candidate, both under the kubelet's config flags as its host holds them (kubelethost.ts) — the comparison
// admission and the agent make (nodeRefusal, src/nodepolicy/verdict.ts). A candidate that does not load or validate
// is blamed on the node's own files when they fail alone too; a replacement that leaves out the node's API-access
// settings is refused (dropped.ts). Pure: the caller reads the files and the policies.

import { DroppedFieldsError, LoadError, NodeFilesError, ValidateError } from '../api/configstatus.js';
import {
  KubeletConfigError,
  type KubeletConfiguration,
  type KubeletVersion,
  type Layer,
} from '../kubeletconfig/index.js';
import { effectiveChange, type NodeConfigFlags } from '../nodepolicy/flags.js';
import type { NodeConfigPolicy } from '../nodepolicy/spec.js';
import { nodeRefusal } from '../nodepolicy/verdict.js';
import type { Validation } from './decide.js';
import { DROPS_FIELDS_ANNOTATION, droppedFields, unaccepted } from './dropped.js';
import { messages } from './messages.js';

const EMPTY = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

/** A candidate that validates, with the config the kubelet would run. */
export type CandidateCheck = { ok: true; config: KubeletConfiguration } | Exclude<Validation, { ok: true }>;

export interface Candidate {
  mode: 'dropin' | 'replace';
  /** The assigned payload, named for messages. */
  payload: { bytes: Uint8Array; name: string };
  /** The node's --config file (dropin mode), with its directory for relative paths. */
  base?: Layer;
  /** The directory of --config (replace mode: relative paths resolve against it). */
  configDir: string;
  /** The other drop-ins of --config-dir by file name (the daemon's own excluded), in order. */
  dropIns: readonly { fileName: string; layer: Layer }[];
  /** The daemon's drop-in file name, where the payload sorts among the others. */
  dropInName: string;
  /** The assigned ConfigMap's DROPS_FIELDS_ANNOTATION: what a replacement may leave out of the node's own file. */
  dropsAccepted?: string | undefined;
}

export function validateCandidate(kubelet: KubeletVersion, c: Candidate): CandidateCheck {
  let base: Layer;
  let dropIns: Layer[];
  if (c.mode === 'dropin') {
    base = c.base ?? { bytes: EMPTY, name: '(defaults)', dir: c.configDir };
    const ours = { fileName: c.dropInName, layer: { bytes: c.payload.bytes, name: c.payload.name } };
    dropIns = [...c.dropIns, ours]
      .sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0))
      .map((d) => d.layer);
  } else {
    base = { bytes: c.payload.bytes, name: c.payload.name, dir: c.configDir };
    dropIns = c.dropIns.map((d) => d.layer);
  }
  return checkLayers(kubelet, base, dropIns);
}

/** Render, validation and the start-up checks of one stack of layers, as the kubelet runs them. */
function checkLayers(kubelet: KubeletVersion, base: Layer, dropIns: Layer[]): CandidateCheck {
  let config;
  try {
    config = kubelet.render(base, dropIns).config;
  } catch (err) {
    if (err instanceof KubeletConfigError) return { ok: false, reason: LoadError, detail: err.message };
    throw err;
  }
  const v = kubelet.validate(config);
  if (v.errors.length > 0) return { ok: false, reason: ValidateError, detail: v.errors.join('; ') };
  const s = kubelet.validateStartup(config);
  if (s.errors.length > 0) return { ok: false, reason: ValidateError, detail: s.errors.join('; ') };
  return { ok: true, config };
}

/**
 * The node's own files alone (its --config file as it was before dkc under the other drop-ins): when they do not load
 * or validate either, a refusal names them, not the assignment, and the kubelet is left alone.
 */
export function checkNodeFiles(kubelet: KubeletVersion, ownBase: Layer | undefined, c: Candidate): Validation {
  const base = ownBase ?? { bytes: EMPTY, name: '(defaults)', dir: c.configDir };
  const own = checkLayers(
    kubelet,
    base,
    c.dropIns.map((d) => d.layer),
  );
  if (own.ok) return { ok: true };
  return {
    ok: false,
    reason: NodeFilesError,
    detail: messages.nodeFilesBroken(own.detail),
    stage: own.reason === LoadError ? 'load' : 'validate',
    nodeFiles: true,
  };
}

/** Replace mode: the guarded fields of the node's own file that the replacement leaves out, unless accepted. */
export function checkDropped(ownBase: Layer | undefined, c: Candidate): Validation {
  if (c.mode !== 'replace') return { ok: true };
  const dropped = unaccepted(
    droppedFields(
      ownBase?.bytes,
      c.payload.bytes,
      c.dropIns.map((d) => d.layer.bytes),
    ),
    c.dropsAccepted,
  );
  if (dropped.length === 0) return { ok: true };
  return {
    ok: false,
    reason: DroppedFieldsError,
    detail: messages.droppedFields(dropped, DROPS_FIELDS_ANNOTATION),
    stage: 'validate',
  };
}

/** What the policies judge by: the governing Deny policies, the node's own --config file, the kubelet's config flags. */
export interface PolicyContext {
  governing: readonly NodeConfigPolicy[];
  /** The --config file as the node had it before dkc (absent: none, defaults). */
  ownBase?: Layer | undefined;
  /** The kubelet's config flags as its host holds them (undefined: none known, no field held). */
  flags: NodeConfigFlags | undefined;
}

/** The node's own config as its kubelet reads it without dkc; a node whose own files do not load: the defaults. */
function ownConfig(kubelet: KubeletVersion, base: Layer | undefined, c: Candidate): KubeletConfiguration {
  const defaults = { bytes: EMPTY, name: '(defaults)', dir: c.configDir };
  try {
    return kubelet.render(
      base ?? defaults,
      c.dropIns.map((d) => d.layer),
    ).config;
  } catch (err) {
    if (!(err instanceof KubeletConfigError)) throw err;
    return kubelet.render(defaults, []).config;
  }
}

/**
 * The whole verdict on a candidate: valid for the kubelet's minor (validateCandidate), then allowed by the policies
 * that govern the node — the node's own config (its own --config file under the other drop-ins) against the candidate
 * as the kubelet would run it, both under its config flags.
 */
export function judgeCandidate(kubelet: KubeletVersion, c: Candidate, policies: PolicyContext): Validation {
  const checked = validateCandidate(kubelet, c);
  if (!checked.ok) {
    const own = checkNodeFiles(kubelet, policies.ownBase, c);
    return own.ok ? checked : own;
  }
  const dropped = checkDropped(policies.ownBase, c);
  if (!dropped.ok) return dropped;
  if (policies.governing.length === 0) return { ok: true };
  const own = ownConfig(kubelet, policies.ownBase, c);
  const denied = nodeRefusal(
    policies.governing,
    effectiveChange(own, checked.config, policies.flags),
    kubelet.schema(),
  );
  return denied ? { ok: false, reason: denied.reason, detail: denied.detail, stage: 'policy' } : { ok: true };
}
