// Registering the agent's Node with the API server, as the kubelet's registerWithAPIServer does: POST the
// Node; when it already exists, reconcile the labels and annotations this agent owns with a merge patch
// and carry on; while the server cannot be reached, retry with capped exponential backoff until it can or
// the caller's signal fires. A node never sets spec.configSource: that field belongs to operators.

import type { Node } from '../../api/types.js';
import { ApiError, type RestClient } from '../../client/index.js';
import { backoffDelay } from '../../util/backoff.js';
import { klog } from '../../util/klog.js';
import { sleep, systemClock, type Clock } from '../../util/clock.js';
import { NodeAgentError } from './errors.js';
import { goArch, goOS } from './host.js';
import type { OwnNodeStatus } from './status.js';
import { errorMessage } from '../../util/errors.js';

export type RegistrationClient = Pick<RestClient, 'create' | 'get' | 'patch'>;

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ARCH = 'kubernetes.io/arch';
/** Still written by 1.22 kubelets next to the stable ones; old selectors depend on them. */
export const LABEL_OS_BETA = 'beta.kubernetes.io/os';
export const LABEL_ARCH_BETA = 'beta.kubernetes.io/arch';
export const ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH = 'volumes.kubernetes.io/controller-managed-attach-detach';

export interface NodeIdentity {
  nodeName: string;
  /** The kubernetes.io/hostname label; the node name when omitted. */
  hostname?: string;
  /** `--node-labels`; they win over the default labels of the same key. */
  labels?: Readonly<Record<string, string>>;
  /** Go's GOOS/GOARCH spelling; this host's when omitted. */
  os?: string;
  arch?: string;
  /** enableControllerAttachDetach, announced through the annotation the attach/detach controller reads. */
  controllerAttachDetach?: boolean;
  /** Further annotations the agent owns (its config flags, src/nodepolicy/flags.ts), reconciled like the others. */
  annotations?: Readonly<Record<string, string>>;
}

export interface RegisterNodeOptions extends NodeIdentity {
  /** Status sent with the first POST, as the kubelet sends its initial status (conditions, capacity, …). */
  status?: Partial<OwnNodeStatus>;
  clock?: Clock;
  signal?: AbortSignal;
  /** Delay before the first retry; doubled per attempt up to maxDelayMs (the kubelet: 100 ms to 7 s). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Give up after this many attempts (unlimited by default, like the kubelet; the signal still ends it). */
  maxAttempts?: number;
}

/** The labels the agent owns: hostname, os and arch (stable and beta), then `--node-labels`. */
export function nodeLabels(identity: NodeIdentity): Record<string, string> {
  const os = identity.os ?? goOS();
  const arch = identity.arch ?? goArch();
  return {
    [LABEL_ARCH_BETA]: arch,
    [LABEL_OS_BETA]: os,
    [LABEL_ARCH]: arch,
    [LABEL_HOSTNAME]: identity.hostname ?? identity.nodeName,
    [LABEL_OS]: os,
    ...(identity.labels ?? {}),
  };
}

function nodeAnnotations(identity: NodeIdentity): Record<string, string> {
  return {
    ...(identity.controllerAttachDetach === false ? {} : { [ANNOTATION_CONTROLLER_MANAGED_ATTACH_DETACH]: 'true' }),
    ...(identity.annotations ?? {}),
  };
}

/** The Node the agent POSTs. Pure. */
export function buildInitialNode(identity: NodeIdentity, status?: Partial<OwnNodeStatus>): Node {
  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: identity.nodeName, labels: nodeLabels(identity) },
    spec: {},
  };
  const annotations = nodeAnnotations(identity);
  if (Object.keys(annotations).length > 0) node.metadata.annotations = annotations;
  if (status !== undefined) node.status = { ...status };
  return node;
}

/**
 * The merge patch that brings an existing Node's labels and annotations in line with what this agent
 * owns, or undefined when nothing differs. Labels others added are left alone. Pure.
 */
export function reconcilePatch(
  existing: Node,
  desired: Node,
): { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } } | undefined {
  const diff = (
    have: Record<string, string> | undefined,
    want: Record<string, string> | undefined,
  ): Record<string, string> | undefined => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(want ?? {})) if (have?.[k] !== v) out[k] = v;
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const labels = diff(existing.metadata.labels, desired.metadata.labels);
  const annotations = diff(existing.metadata.annotations, desired.metadata.annotations);
  if (labels === undefined && annotations === undefined) return undefined;
  const metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } = {};
  if (labels !== undefined) metadata.labels = labels;
  if (annotations !== undefined) metadata.annotations = annotations;
  return { metadata };
}

function nodePath(name: string): string {
  return `/api/v1/nodes/${encodeURIComponent(name)}`;
}

/** Errors no retry can fix: the server understood the Node and refused it. */
function isPermanent(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 400 || err.code === 422);
}

async function tryRegister(client: RegistrationClient, node: Node, signal: AbortSignal | undefined): Promise<Node> {
  const opts = signal ? { signal } : {};
  try {
    const created = await client.create<Node>('/api/v1/nodes', node, opts);
    klog.info('Successfully registered node', { node: node.metadata.name });
    return created;
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 409)) throw err;
  }
  const existing = await client.get<Node>(nodePath(node.metadata.name!), opts);
  const patch = reconcilePatch(existing, node);
  if (patch === undefined) return existing;
  klog.info('Node was previously registered; reconciling its labels and annotations', { node: node.metadata.name });
  return client.patch<Node>(nodePath(node.metadata.name!), 'merge', patch, opts);
}

/**
 * Registers the Node and resolves with the stored object (its uid is what the Lease's ownerReference
 * needs). Retries every failure but a 400/422 refusal (REGISTRATION_REJECTED); rejects with ABORTED when
 * the signal fires, or with the last error once maxAttempts is spent.
 */
export async function registerNode(client: RegistrationClient, options: RegisterNodeOptions): Promise<Node> {
  const clock = options.clock ?? systemClock;
  const node = buildInitialNode(options, options.status);
  const backoff = { initialMs: options.initialDelayMs ?? 100, maxMs: options.maxDelayMs ?? 7000 };
  const attempts = options.maxAttempts ?? Infinity;
  const aborted = (): NodeAgentError =>
    new NodeAgentError('DKC_NODE_ABORTED', `registration of node ${JSON.stringify(options.nodeName)} was aborted`);
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw aborted();
    try {
      return await tryRegister(client, node, options.signal);
    } catch (err) {
      if (options.signal?.aborted) throw aborted();
      if (isPermanent(err)) {
        throw new NodeAgentError(
          'DKC_NODE_REGISTRATION_REJECTED',
          `unable to register node ${JSON.stringify(options.nodeName)} with API server: ${errorMessage(err)}`,
          { cause: err },
        );
      }
      klog.error(`Unable to register node with API server: ${errorMessage(err)}`, { node: options.nodeName });
      if (attempt >= attempts) throw err;
    }
    await sleep(clock, backoffDelay(backoff, attempt), options.signal, aborted);
  }
}
