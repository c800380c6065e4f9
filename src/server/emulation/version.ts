// `--emulated-version X.Y`: which kube-apiserver minor dkc server behaves as. Without it the server is what it has
// always been, a 1.22 API server with Dynamic Kubelet Configuration on (the seeds' world); from 1.24 on, Nodes lose
// spec.configSource and status.config as in that release (see ./nodes.ts), the Node authorizer loses the
// Node → ConfigMap edge, and /version reports the release. Pure.

import { messages } from './messages.js';
import { CodedError } from '../../util/errors.js';

export interface KubeVersion {
  major: number;
  minor: number;
}

/** The releases dkc knows the behaviour of: 1.22 (its default) to 1.36. */
export const OLDEST_EMULATED: KubeVersion = { major: 1, minor: 22 };
export const NEWEST_EMULATED: KubeVersion = { major: 1, minor: 36 };
/** The release whose kube-apiserver behaviour dkc has by default. */
export const DEFAULT_VERSION: KubeVersion = OLDEST_EMULATED;

/** --emulated-version is not a release dkc knows the behaviour of. */
export class EmulatedVersionError extends CodedError<'DKC_SERVER_INVALID_EMULATED_VERSION'> {
  override name = 'EmulatedVersionError';
  constructor(message: string) {
    super('DKC_SERVER_INVALID_EMULATED_VERSION', message);
  }
}

/** `1.31` → { major: 1, minor: 31 }; anything else, or a release outside what dkc knows, is one line of error. */
export function parseEmulatedVersion(text: string): KubeVersion {
  const m = /^(\d+)\.(\d+)$/.exec(text.trim());
  const v = m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
  if (!v || compare(v, OLDEST_EMULATED) < 0 || compare(v, NEWEST_EMULATED) > 0) {
    throw new EmulatedVersionError(messages.invalidVersion(text, format(OLDEST_EMULATED), format(NEWEST_EMULATED)));
  }
  return v;
}

export function compare(a: KubeVersion, b: KubeVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

export const format = (v: KubeVersion): string => `${v.major}.${v.minor}`;

/**
 * Whether Nodes keep spec.configSource and status.config. kube-apiserver dropped them from 1.22 with the
 * DynamicKubeletConfig gate at its default (off), and always from 1.26, when the gate went; dkc's default is the
 * gate on, which 1.22 and 1.23 still allowed (the kubelet lost the feature in 1.24).
 */
export const keepsNodeConfigSource = (v: KubeVersion): boolean => compare(v, { major: 1, minor: 24 }) < 0;

/** The `Warning` kube-apiserver answers a Node write with while the stored Node carries spec.configSource. */
export function configSourceWarning(v: KubeVersion): string {
  // The gate's removal (1.26) changed the text; before, it still announced a removal planned for 1.23.
  return compare(v, { major: 1, minor: 26 }) < 0 ? messages.configSourceDeprecated : messages.configSourceRemoved;
}

/** /version's gitVersion: dkc's own build of the default release, the plain release tag when emulating. */
export function gitVersion(v: KubeVersion | undefined): string {
  return v ? `v${v.major}.${v.minor}.0` : 'v1.22.17-dkc.0';
}
