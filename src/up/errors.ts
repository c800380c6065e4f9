// `dkc up`'s error catalogue: every message it shows on the terminal, with a stable code for programs.

import { CodedError } from '../util/errors.js';

export type UpErrorCode =
  /** A flag of `dkc up` has a value it cannot use. */
  | 'DKC_UP_INVALID_OPTION'
  /** Another live `dkc up` holds the data dir. */
  | 'DKC_UP_DATA_DIR_IN_USE'
  /** The data dir's lock file cannot be created or read. */
  | 'DKC_UP_DATA_DIR_LOCK_FAILED'
  /** The cluster's server did not come up. */
  | 'DKC_UP_CLUSTER_FAILED';

export class UpError extends CodedError<UpErrorCode> {
  override name = 'UpError';
}

export const messages = {
  invalidInt: (flag: string, v: string, min: number, max: number) =>
    `invalid ${flag} ${JSON.stringify(v)}: must be an integer in [${min}, ${max}]`,
  invalidStorage: (v: string) => `invalid --storage ${JSON.stringify(v)}: must be sqlite or etcd`,
  invalidKubeletVersion: (why: string) => `invalid --kubelet-version: ${why}`,
  invalidNodeDaemon: (v: string) => `invalid --node-daemon ${JSON.stringify(v)}: must be dropin, replace or off`,
  dataDirInUse: (dir: string, pid: number) => `data dir ${dir} is in use by dkc (pid ${pid})`,
  lockFailed: (path: string, why: string) => `cannot lock the data dir (${path}): ${why}`,
  lockContended: (path: string) => `cannot lock the data dir: ${path} keeps changing hands`,
  serverFailed: (reason: string, log: string) => `the API server failed to start: ${reason} (log: ${log})`,
  serverExited: (code: number | null, signal: string | null, log: string) =>
    `dkc server exited (code ${code}, signal ${signal}); see ${log}`,
  serverNoKubeconfig: (path: string, ms: number) => `the API server did not write ${path} within ${ms} ms`,
  noCAKey: (pki: string) => `${pki} has no CA key; cannot issue node certificates`,
} as const;
