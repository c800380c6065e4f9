// The exit codes of dkc's commands, chosen here, where an error leaves the process: what a script needs to tell
// apart is whether it called dkc wrongly (fix the call), whether the thing it named is not there, whether the server
// said no (fix the request or the rights), and whether nothing answered (try again later). Everything else stays 1.
// 2 is left to the commands that give it a meaning of their own (`dkc rollout status`: not finished; `dkc config
// diff`: trouble, as diff(1)). `dkc agent` exits 0 to restart and 1 otherwise, for its supervisor, and takes no part.
// docs/errors.md lists every error code with its exit code (scripts/gen-errors-doc.mjs).

import { CommanderError } from 'commander';
import { ApiError } from '../client/errors.js';

export const ExitCodes = { ok: 0, failure: 1, usage: 3, notFound: 4, refused: 5, unavailable: 6 } as const;

export type ExitCodeName = keyof typeof ExitCodes;

/** What each exit code tells a script (docs/errors.md prints this table). */
export const exitCodeMeanings: Readonly<Record<ExitCodeName, string>> = {
  ok: 'The command did what it was asked.',
  failure:
    'A failure no other row describes; also the negative answer of a command that has one (a rollout Halted or Reverted, configs that differ, a config with problems).',
  usage: 'A flag, argument or file the command cannot use: nothing was done. Fix the call.',
  notFound:
    'What the command names does not exist: a ConfigMap or its key, a node, a rollout, nodes matching a selector.',
  refused:
    'The API server refused the request: unauthorized, forbidden, conflict, invalid (a 4xx answer other than 404, 410 and 429).',
  unavailable:
    'Nothing answered in time: the API server (or etcd) is unreachable, overloaded or failing (no answer, 429, 5xx). Try again later.',
};

/** The error codes whose exit code is not 1. A code not listed exits 1, or as its cause does when it wraps one. */
const BY_CODE: Readonly<Record<string, ExitCodeName>> = {
  DKC_AGENT_INVALID_FLAG: 'usage',
  DKC_API_LABEL_SELECTOR_SYNTAX: 'usage',
  DKC_API_FIELD_SELECTOR_SYNTAX: 'usage',
  DKC_CHANNEL_INVALID_CHOICE: 'usage',
  DKC_CLIENT_CONNECTION: 'unavailable',
  DKC_CLIENT_INVALID_ARGUMENT: 'usage',
  DKC_CLIENT_KUBECONFIG_INVALID: 'usage',
  DKC_CLIENT_KUBECONFIG_READ: 'usage',
  DKC_CLIENT_KUBECONFIG_UNSUPPORTED: 'usage',
  DKC_CLIENT_TIMEOUT: 'unavailable',
  DKC_CONFIG_CONFIGMAP_KEY: 'notFound',
  DKC_CONFIG_CONFIGMAP_NOT_FOUND: 'notFound',
  DKC_CONFIG_INVALID_SOURCE: 'usage',
  DKC_CONFIG_READ_FAILED: 'usage',
  DKC_CONTROLLER_INVALID_BIND_ADDRESS: 'usage',
  DKC_CONTROLLER_INVALID_DURATION: 'usage',
  DKC_CONTROLLER_INVALID_LEASE_NAME: 'usage',
  DKC_CONTROLLER_UNKNOWN: 'usage',
  DKC_FLEET_CA_UNREADABLE: 'usage',
  DKC_FLEET_INVALID_OPTION: 'usage',
  DKC_FLEET_TOKENS_REFUSED: 'refused',
  DKC_KUBELETCONFIG_UNKNOWN_VERSION: 'usage',
  DKC_NODE_CAPACITY_INVALID: 'usage',
  DKC_ROLLOUT_CONFIGMAP_KEY_MISSING: 'notFound',
  DKC_ROLLOUT_CONFIGMAP_NOT_FOUND: 'notFound',
  DKC_ROLLOUT_DELETED: 'notFound',
  DKC_ROLLOUT_INVALID_FLAG: 'usage',
  DKC_ROLLOUT_NO_MATCHING_NODES: 'notFound',
  DKC_SERVER_INVALID_CONFIG: 'usage',
  DKC_SERVER_INVALID_EMULATED_VERSION: 'usage',
  DKC_SERVER_INVALID_TOKEN_FILE: 'usage',
  DKC_STORE_UNAVAILABLE: 'unavailable',
  DKC_UI_INVALID_FLAG: 'usage',
  DKC_UP_INVALID_OPTION: 'usage',
};

/** The exit code of an error code, on its own (without a cause to look at). */
export function exitCodeOfCode(code: string): ExitCodeName {
  return Object.prototype.hasOwnProperty.call(BY_CODE, code) ? BY_CODE[code]! : 'failure';
}

/** The exit code of an answer from the API server, by its HTTP status. */
export function exitCodeOfHttpStatus(status: number): ExitCodeName {
  if (status === 404 || status === 410) return 'notFound';
  if (status === 429 || status >= 500) return 'unavailable';
  return status >= 400 ? 'refused' : 'failure';
}

/** The exit code a command ends with after `err`: by its code, or by its cause when its own code says no more than 1. */
export function exitCodeFor(err: unknown): number {
  return ExitCodes[exitCodeNameFor(err, 0)];
}

function exitCodeNameFor(err: unknown, depth: number): ExitCodeName {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 'ok' : 'usage';
  if (err instanceof ApiError) return exitCodeOfHttpStatus(err.code);
  // By the code rather than by CodedError's class: the KubeletConfiguration library is loaded as its own bundle
  // (scripts/bundle.mjs), whose errors extend a copy of the class.
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  const own = typeof code === 'string' ? exitCodeOfCode(code) : 'failure';
  if (own !== 'failure' || depth > 8 || !(err instanceof Error) || err.cause === undefined) return own;
  return exitCodeNameFor(err.cause, depth + 1);
}

/** The error codes given an exit code other than 1 (for docs/errors.md, which checks that each still exists). */
export function exitCodeTable(): string[] {
  return Object.keys(BY_CODE);
}
