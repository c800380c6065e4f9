// `dkc config`'s catalogue: every line diff, lint and render show an operator. Problems with a config are prefixed
// with the source they come from (`cm/kube-system/x:kubelet: …`), as `dkc config validate` prefixes the file name;
// failures to reach a source are one `error: …` line, as kubectl words them.

import { CodedError } from '../../util/errors.js';
import { configMapMessages, errorLine as kubectlErrorLine } from '../kubectl.js';

export type ConfigErrorCode =
  /** A SOURCE argument is neither a file, `cm/NS/NAME[:KEY]` nor `node/NAME`. */
  | 'DKC_CONFIG_INVALID_SOURCE'
  /** A file or directory could not be read. */
  | 'DKC_CONFIG_READ_FAILED'
  /** The ConfigMap does not exist. */
  | 'DKC_CONFIG_CONFIGMAP_NOT_FOUND'
  /** The ConfigMap lacks the key, or has several and none was named. */
  | 'DKC_CONFIG_CONFIGMAP_KEY'
  /** The node does not exist, or its /configz did not answer through the API's node proxy. */
  | 'DKC_CONFIG_NODE_CONFIGZ';

export class ConfigCommandError extends CodedError<ConfigErrorCode> {
  override name = 'ConfigCommandError';
}

const q = (s: string): string => JSON.stringify(s);

export const messages = {
  invalidSource: (s: string) => `invalid source ${q(s)}: want a file, cm/NAMESPACE/NAME[:KEY] or node/NAME`,
  readFailed: (path: string, why: string) => `failed to read ${q(path)}: ${why}`,
  configMapNotFound: configMapMessages.notFound,
  configMapNoKey: configMapMessages.noKey,
  configMapWhichKey: (ns: string, name: string, keys: readonly string[]) =>
    `configmap ${ns}/${name} has several keys (${keys.join(', ')}) and none is "kubelet": name one as cm/${ns}/${name}:KEY`,
  nodeNotFound: (name: string) => `node ${q(name)} not found`,
  configzFailed: (name: string, why: string) =>
    `cannot read the config of node ${q(name)} from /configz through the API's node proxy: ${why}`,
  configzShape: (name: string) => `node ${q(name)} answered /configz without a kubeletconfig object`,
  /** A problem found in a source, on one line. */
  problem: (source: string, message: string) => `${source}: ${oneLine(message)}`,
  warning: (source: string, message: string) => `${source}: warning: ${oneLine(message)}`,
  unset: '(unset)',
  lintChange: (cls: string, path: string, from: string, to: string, reason: string) =>
    `${cls.padEnd(10)} ${path}: ${from} -> ${to}  (${reason})`,
  lintUnclassified: 'not a v1beta1 field',
} as const;

/** A message may hold a newline (a file name can); each must stay on one output line. */
export function oneLine(msg: string): string {
  return msg.replace(/\r/g, '\\r').replace(/\n/g, '\\n');
}

/** The one line a failure prints: `Error from server (Reason): …` for the server's refusals, else `error: …`. */
export function errorLine(err: unknown): string {
  return kubectlErrorLine(err, oneLine);
}
