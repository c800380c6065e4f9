// Which channel carries a node's config assignment on the cluster at hand: the Node itself (`spec.configSource`,
// `status.config`: kube-apiserver before 1.24, and dkc server by default) or the node's NodeConfig (`dkc.io/v1alpha1`:
// every kube-apiserver from 1.24 on, which drops the Node's fields). Found, not configured: each component looks once
// at start (the server's version, and whether `nodeconfigs.dkc.io` is served) and says which channel it uses in one
// log line; `--config-channel` may force it. The decision, pure: `chooseChannel`, `mixedChannels`; the I/O around it
// (`discoverChannel`) is the client's (src/client/channel.ts).

import { CodedError } from '../../util/errors.js';
import { NODE_CONFIG_CRD, NODE_CONFIGS } from './nodeconfig.js';

export type ConfigChannel = 'node' | 'nodeconfig';
/** A `--config-channel` value: a channel, or `auto` (the default) to find it. */
export type ChannelChoice = ConfigChannel | 'auto';
export const CHANNEL_CHOICES: readonly ChannelChoice[] = ['auto', 'node', 'nodeconfig'];

/** The first kube-apiserver release that drops Node.spec.configSource and Node.status.config for good. */
export const FIRST_RELEASE_WITHOUT_NODE_CHANNEL = { major: 1, minor: 24 } as const;

/** What a component learns about the server before it picks a channel. */
export interface ChannelFacts {
  /** `/version`'s major and minor; undefined when the server did not say (then the version does not decide). */
  server?: { major: number; minor: number; gitVersion: string };
  /** Whether `/apis/dkc.io/v1alpha1` lists `nodeconfigs`. */
  nodeConfigServed: boolean;
}

export interface ChannelDecision {
  channel: ConfigChannel;
  /** The one log line a component prints at start. */
  says: string;
}

export type ConfigChannelErrorCode =
  /** A --config-channel value that is none of auto, node, nodeconfig. */
  | 'DKC_CHANNEL_INVALID_CHOICE'
  /** No channel fits the server (or the forced one does not), or assignments live on both: the message says what to do. */
  | 'DKC_CHANNEL_REFUSED';

export class ConfigChannelError extends CodedError<ConfigChannelErrorCode> {
  override name = 'ConfigChannelError';
  constructor(message: string, code: ConfigChannelErrorCode = 'DKC_CHANNEL_REFUSED') {
    super(code, message);
  }
}

const messages = {
  chosen: (channel: ConfigChannel, why: string) =>
    channel === 'node'
      ? `config channel: Node (spec.configSource, status.config) — ${why}`
      : `config channel: NodeConfig (${NODE_CONFIGS}.dkc.io) — ${why}`,
  forced: 'forced by --config-channel',
  oldServer: (v: string) => `the API server (${v}) keeps the Node's fields`,
  newServer: (v: string) => `the API server (${v}) drops the Node's spec.configSource and status.config`,
  noVersion: (served: boolean) =>
    served
      ? `the API server serves ${NODE_CONFIG_CRD} and did not say its version`
      : `the API server did not say its version`,
  crdMissing: (v: string) =>
    `the API server (${v}) drops Node.spec.configSource and Node.status.config, and ${NODE_CONFIG_CRD} is not served: ` +
    `apply deploy/crds/${NODE_CONFIG_CRD}.yaml (kubectl apply -f deploy/crds/) and start again`,
  forcedCrdMissing: `--config-channel=nodeconfig, but ${NODE_CONFIG_CRD} is not served: apply deploy/crds/${NODE_CONFIG_CRD}.yaml first`,
  forcedNodeGone: (v: string) =>
    `--config-channel=node, but the API server (${v}) drops Node.spec.configSource and Node.status.config: use nodeconfig (or auto)`,
  mixed: (channel: ConfigChannel, other: string, example: string) =>
    `refusing to mix config channels: this cluster's channel is ${channel === 'node' ? 'Node' : 'NodeConfig'}, but ${other} ` +
    `(${example}); move every assignment to one channel first`,
  unknownChoice: (v: string) => `invalid --config-channel "${v}": must be one of ${CHANNEL_CHOICES.join(', ')}`,
};

/** `--config-channel`'s value, checked: one line of error for anything else. */
export function parseChannelChoice(text: string): ChannelChoice {
  const v = text.trim() as ChannelChoice;
  if (!CHANNEL_CHOICES.includes(v))
    throw new ConfigChannelError(messages.unknownChoice(text), 'DKC_CHANNEL_INVALID_CHOICE');
  return v;
}

const dropsNodeFields = (v: { major: number; minor: number }): boolean =>
  v.major > FIRST_RELEASE_WITHOUT_NODE_CHANNEL.major ||
  (v.major === FIRST_RELEASE_WITHOUT_NODE_CHANNEL.major && v.minor >= FIRST_RELEASE_WITHOUT_NODE_CHANNEL.minor);

/**
 * The channel for `facts`, or a ConfigChannelError saying what to do. Rules: a forced channel is used if the server can
 * carry it; from 1.24 on only NodeConfig can (and its CRD must be served); before 1.24 the Node keeps its fields and is
 * the channel unless forced; a server that does not say its version uses NodeConfig when served.
 */
export function chooseChannel(facts: ChannelFacts, choice: ChannelChoice = 'auto'): ChannelDecision {
  const v = facts.server;
  const drops = v !== undefined && dropsNodeFields(v);
  if (choice === 'nodeconfig') {
    if (!facts.nodeConfigServed) throw new ConfigChannelError(messages.forcedCrdMissing);
    return { channel: 'nodeconfig', says: messages.chosen('nodeconfig', messages.forced) };
  }
  if (choice === 'node') {
    if (drops) throw new ConfigChannelError(messages.forcedNodeGone(v.gitVersion));
    return { channel: 'node', says: messages.chosen('node', messages.forced) };
  }
  if (v === undefined) {
    const channel: ConfigChannel = facts.nodeConfigServed ? 'nodeconfig' : 'node';
    return { channel, says: messages.chosen(channel, messages.noVersion(facts.nodeConfigServed)) };
  }
  if (!drops) return { channel: 'node', says: messages.chosen('node', messages.oldServer(v.gitVersion)) };
  if (!facts.nodeConfigServed) throw new ConfigChannelError(messages.crdMissing(v.gitVersion));
  return { channel: 'nodeconfig', says: messages.chosen('nodeconfig', messages.newServer(v.gitVersion)) };
}

/** Names of the objects that carry an assignment on each channel (a Node with spec.configSource, a NodeConfig with one). */
export interface AssignmentsSeen {
  nodes: readonly string[];
  nodeConfigs: readonly string[];
}

/** A ConfigChannelError when assignments live on the channel not in use (a cluster must use one), else undefined. */
export function mixedChannels(channel: ConfigChannel, seen: AssignmentsSeen): ConfigChannelError | undefined {
  const others = channel === 'node' ? seen.nodeConfigs : seen.nodes;
  if (others.length === 0) return undefined;
  const what =
    channel === 'node'
      ? `${others.length} NodeConfig(s) carry spec.configSource`
      : `${others.length} Node(s) carry spec.configSource`;
  const example = channel === 'node' ? `nodeconfig/${others[0]}` : `node/${others[0]}`;
  return new ConfigChannelError(messages.mixed(channel, what, example));
}

/** /version's answer, as much of it as the channel needs. */
export interface VersionInfo {
  major?: string;
  minor?: string;
  gitVersion?: string;
}

/** `/version`'s major and minor ("1", "31+" as some providers write it), or undefined when it has none. */
export function serverVersionOf(info: VersionInfo): ChannelFacts['server'] {
  const major = Number.parseInt(info.major ?? '', 10);
  const minor = Number.parseInt(info.minor ?? '', 10);
  if (!Number.isFinite(major) || !Number.isFinite(minor)) return undefined;
  return { major, minor, gitVersion: info.gitVersion ?? `v${major}.${minor}` };
}
