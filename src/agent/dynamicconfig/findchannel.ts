// Finding the node's assignment channel, once, as the agent starts: discovery (the server's version, and whether
// nodeconfigs.dkc.io is served: src/client/channel.ts) said in one log line, then, on the NodeConfig channel, a look at
// the node's own Node, which must not carry an assignment of its own (a cluster uses one channel). The agent does not
// wait for this to boot — it runs on its checkpoints while the API server is away — and its sync starts once the
// channel is found. A server that does not answer is asked again with capped backoff; a channel that cannot serve
// (a ConfigChannelError: forced to one the server lacks, or mixed) is for the agent to refuse.

import type { Node } from '../../api/types.js';
import {
  ConfigChannelError,
  discoverChannel,
  mixedChannels,
  type ChannelChoice,
  type ChannelDecision,
} from '../../client/channel.js';
import { isApiError } from '../../client/errors.js';
import { backoffDelay } from '../../util/backoff.js';
import { sleep, systemClock, type Clock } from '../../util/clock.js';
import { klog } from '../../util/klog.js';
import { assignmentChannels, type AssignmentChannel, type AssignmentClient } from './assignment.js';
import { errorMessage } from '../../util/errors.js';

/** Finds the channel for a `--config-channel` choice (discoverChannel, or one discovery a fleet's nodes share). */
export type ChannelDiscovery = (choice: ChannelChoice) => Promise<ChannelDecision>;

export type ChannelClient = Pick<AssignmentClient, 'get' | 'create'>;
/** What discovery asks of the API server. */
export type DiscoveryClient = Parameters<typeof discoverChannel>[0];

/** How a retry loop is paced and ended. */
interface Retrying {
  /** Fires when the agent stops: the loop ends (rejecting). */
  signal: AbortSignal;
  clock?: Clock;
  random?: () => number;
}

export const messages = {
  discoveryFailed: (err: string) => `failed to find the config channel, will try again: ${err}`,
  nodeFailed: (err: string) =>
    `failed to read the node's own Node to check for a Node assignment, will try again: ${err}`,
  prepareFailed: (channel: string, err: string) =>
    `failed to prepare the ${channel} config channel, will try again: ${err}`,
  stopped: 'the agent stopped before its config channel was found',
};

/** discoverChannel through `client`, its decision said in one log line. */
export function discoveryThrough(client: DiscoveryClient): ChannelDiscovery {
  return async (choice) => {
    const decision = await discoverChannel(client, choice);
    klog.info(decision.says);
    return decision;
  };
}

/**
 * One discovery for many nodes (a fleet's), through whichever node's client asks first: its answer is every node's,
 * said once. A failed discovery is not kept: the next node to ask asks the server again.
 */
export function sharedDiscovery(): (client: DiscoveryClient, choice: ChannelChoice) => Promise<ChannelDecision> {
  const found = new Map<ChannelChoice, Promise<ChannelDecision>>();
  return (client, choice) => {
    let p = found.get(choice);
    if (!p) {
      p = discoveryThrough(client)(choice);
      found.set(choice, p);
      p.catch(() => found.delete(choice));
    }
    return p;
  };
}

export interface FindChannelOptions extends Retrying {
  /** The node's client: reads its own Node. */
  client: ChannelClient;
  nodeName: string;
  choice: ChannelChoice;
  discover: ChannelDiscovery;
}

/** Retry pacing while the server cannot answer: the kubelet's registration backoff, 100 ms to 7 s. */
const RETRY = { initialMs: 100, maxMs: 7_000, jitter: 0.2 } as const;

/** `attempt()` until it answers, or fails with a ConfigChannelError (no retry can change that) or the signal fires. */
async function untilAnswered<T>(o: Retrying, attempt: () => Promise<T>, failed: (err: string) => string): Promise<T> {
  const clock = o.clock ?? systemClock;
  const stopped = () => new Error(messages.stopped);
  for (let failures = 1; ; failures++) {
    if (o.signal.aborted) throw stopped();
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof ConfigChannelError) throw err;
      if (o.signal.aborted) throw stopped();
      klog.error(failed(errorMessage(err)));
    }
    await sleep(clock, backoffDelay(RETRY, failures, o.random), o.signal, stopped);
  }
}

/**
 * The node's assignment channel. Rejects with a ConfigChannelError when the server cannot carry the chosen channel,
 * or when the NodeConfig channel finds the node's own Node assigned a config (spec.configSource set, which only a
 * server before 1.24 keeps): that assignment would be silently ignored, so the node refuses to start instead.
 */
export async function findAssignmentChannel(o: FindChannelOptions): Promise<AssignmentChannel> {
  const decision = await untilAnswered(o, () => o.discover(o.choice), messages.discoveryFailed);
  // On the Node channel there is nothing more to look at: a NodeConfig is neither read there nor, on a server that
  // does not serve the kind, readable at all.
  if (decision.channel === 'nodeconfig') {
    const node = await untilAnswered(
      o,
      async () => {
        try {
          return await o.client.get<Node>(`/api/v1/nodes/${encodeURIComponent(o.nodeName)}`, { signal: o.signal });
        } catch (err) {
          if (isApiError(err, 404)) return undefined; // not registered yet: nothing assigned on it
          throw err;
        }
      },
      messages.nodeFailed,
    );
    const mixed = mixedChannels(decision.channel, {
      nodes: node?.spec?.configSource ? [o.nodeName] : [],
      nodeConfigs: [],
    });
    if (mixed) throw mixed;
  }
  return assignmentChannels[decision.channel];
}

export interface PrepareChannelOptions extends Retrying {
  channel: Promise<AssignmentChannel>;
  client: ChannelClient;
  nodeName: string;
  /** The Node as registration left it; read from the server when the agent does not register it. */
  node?: Node;
}

/**
 * Once the node's Node exists: what its channel needs besides (the NodeConfig channel creates the node's NodeConfig).
 * Retried until done; rejects only when the channel was not found or the agent stops.
 */
export async function prepareChannel(o: PrepareChannelOptions): Promise<void> {
  const channel = await o.channel;
  await untilAnswered(
    o,
    async () => {
      const node =
        o.node ?? (await o.client.get<Node>(`/api/v1/nodes/${encodeURIComponent(o.nodeName)}`, { signal: o.signal }));
      await channel.registered(o.client, node, { signal: o.signal });
    },
    (err) => messages.prepareFailed(channel.kind, err),
  );
}
