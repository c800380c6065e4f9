// `dkc fleet`'s error catalogue: every message it shows on the terminal, with a stable code for programs.

import { CodedError } from '../util/errors.js';

export type FleetErrorCode =
  /** A flag of `dkc fleet` has a value it cannot use. */
  | 'DKC_FLEET_INVALID_OPTION'
  /** The cluster CA (certificate and key) that issues the nodes' credentials cannot be read. */
  | 'DKC_FLEET_CA_UNREADABLE'
  /** The shared kubelet listener cannot bind a node's address. */
  | 'DKC_FLEET_LISTEN_FAILED'
  /** The API server does not accept dkc node tokens (it is not a dkc server, or trusts another CA). */
  | 'DKC_FLEET_TOKENS_REFUSED';

export class FleetError extends CodedError<FleetErrorCode> {
  override name = 'FleetError';
}

export const messages = {
  invalidInt: (flag: string, v: string, min: number, max: number) =>
    `invalid ${flag} ${JSON.stringify(v)}: must be an integer in [${min}, ${max}]`,
  invalidCredentials: (v: string) => `invalid --credentials ${JSON.stringify(v)}: must be token or certificate`,
  invalidPrefix: (v: string) =>
    `invalid --name-prefix ${JSON.stringify(v)}: node names must be lower-case DNS labels (a-z, 0-9, '-')`,
  tooManyNodes: (last: number) =>
    `the fleet's nodes would need loopback addresses beyond 127.255.255.254 (node number ${last})`,
  caUnreadable: (file: string, why: string) =>
    `cannot read the cluster CA ${file} (pass --ca-cert and --ca-key): ${why}`,
  tokensRefused: (server: string) =>
    `the API server ${server} refuses dkc node tokens (401 Unauthorized): a kube-apiserver does, and so does a dkc server with another client CA; use --credentials=certificate`,
  listenFailed: (address: string, port: number, why: string) =>
    `cannot serve the kubelet endpoints on ${address}:${port}: ${why}`,
  notListening: (address: string, port: number) =>
    `the kubelet endpoints on ${address}:${port} no longer take connections`,
  nodeStartFailed: (node: string, why: string) => `${node}: the agent did not start: ${why}`,
  policiesFailed: (why: string) =>
    `failed to list or watch NodeConfigPolicies for the fleet's nodes (new configs wait), error: ${why}`,
  progress: (registered: number, total: number, ready: number) => `${registered}/${total} registered, ${ready} Ready`,
  allReady: (total: number, seconds: string, rate: string) => `${total} nodes Ready in ${seconds} s (${rate} nodes/s)`,
  stats: (rssMB: string, perNodeKB: string, heapMB: string, p99: string, max: string) =>
    `rss ${rssMB} MB (${perNodeKB} KB per node), heap ${heapMB} MB, event-loop delay p99 ${p99} ms, max ${max} ms (last interval)`,
  stopping: (signal: string) => `received ${signal}, stopping the fleet`,
  stopped: (total: number) => `fleet of ${total} nodes stopped`,
} as const;
