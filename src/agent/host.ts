// Where a node agent runs. `dkc agent` is one node in its own process: it reads its kubeconfig, listens on its own
// ports, reads the machine's facts and owns the process's logging. A fleet runs many nodes in one process and gives
// each its API client, a share of one listener and the facts it simulates. The agent's lifecycle (agent.ts) is the
// same on both hosts; only these edges differ.

import { RestClient } from '../client/index.js';
import type { ChannelChoice, ChannelDecision } from '../client/channel.js';
import type { PolicyFeed } from './dynamicconfig/policywatch.js';
import type { AgentFlags } from './flags.js';
import type { InformerLike } from '../client/sharedinformers.js';
import type { WatchedPod } from './pods/manager.js';
import type { PodRuntime } from './pods/runtime.js';
import {
  hostCapacity,
  readHostSystemInfo,
  startAgentServers,
  type AgentServers,
  type AgentServersOptions,
  type HostSystemInfo,
  type MachineResources,
} from './node/index.js';

export interface AgentHost {
  /** Whether the agent sets the process's log format and verbosity (a fleet's nodes share the process's logging). */
  readonly ownsLogging: boolean;
  /**
   * The node's API client, sending `userAgent` (the kubelet's), or undefined to run standalone. The agent closes it
   * when it stops.
   */
  connect(flags: AgentFlags, userAgent: string): Promise<RestClient | undefined>;
  /** Starts the node's HTTPS endpoints (and, on its own host, the read-only and healthz ports). */
  serve(options: AgentServersOptions): Promise<AgentServers>;
  /** cpu, memory and, where known, ephemeral-storage of the machine, before `--capacity`. */
  machine(): Promise<MachineResources>;
  /** What goes into status.nodeInfo besides versions. */
  systemInfo(): Promise<HostSystemInfo>;
  /** The NodeConfigPolicies to judge configs by, when the host shares one feed among its nodes; else each lists its own. */
  policyFeed?(): PolicyFeed;
  /**
   * The config channel for a `--config-channel` choice, when the host finds it once for all its nodes (and says it in
   * one log line); else each node asks the API server through `client`.
   */
  discoverChannel?(client: RestClient, choice: ChannelChoice): Promise<ChannelDecision>;
  /** Whether the node runs the Pods bound to it (./pods/manager.ts). */
  readonly runsPods?: boolean;
  /**
   * Where a node of a host with many finds its Pods: a view of one watch the host shares and a runtime in the host's
   * memory, which outlives the node's agent. The node then keeps no files of its own for them (no runtime file, no
   * CPU and memory manager checkpoints). Without it, the node watches its Pods itself and keeps its runtime and the
   * checkpoints under --root-dir.
   */
  sharedPods?(nodeName: string): { feed: InformerLike<WatchedPod>; runtime: PodRuntime };
}

/** `dkc agent`: one node, its own process. */
export const processHost: AgentHost = {
  ownsLogging: true,
  connect: async (flags, userAgent) =>
    flags.kubeconfig ? RestClient.fromKubeconfig(flags.kubeconfig, { userAgent }) : undefined,
  serve: startAgentServers,
  machine: () => hostCapacity(),
  systemInfo: readHostSystemInfo,
  runsPods: true,
};
