// Finding the config channel (Node or NodeConfig) on the server at hand: the facts `chooseChannel` needs (/version
// and whether nodeconfigs.dkc.io is served), asked once. The decision itself is the API's (src/api/dkc/channel.ts).

import { DKC_API_VERSION, NODE_CONFIGS } from '../api/dkc/nodeconfig.js';
import {
  chooseChannel,
  serverVersionOf,
  type ChannelChoice,
  type ChannelDecision,
  type ChannelFacts,
  type VersionInfo,
} from '../api/dkc/channel.js';
import { isApiError } from './errors.js';
import type { RestClient } from './rest.js';

export * from '../api/dkc/channel.js';

/** Asks the server what `chooseChannel` needs: `/version` and the dkc.io group's resources. */
export async function channelFacts(client: RestClient, signal?: AbortSignal): Promise<ChannelFacts> {
  const callOptions = signal ? { signal } : {};
  const info = await client.get<VersionInfo>('/version', callOptions);
  let nodeConfigServed = false;
  try {
    const list = await client.get<{ resources?: { name?: string }[] }>(`/apis/${DKC_API_VERSION}`, callOptions);
    nodeConfigServed = (list.resources ?? []).some((r) => r.name === NODE_CONFIGS);
  } catch (err) {
    if (!isApiError(err) || err.code !== 404) throw err;
  }
  const server = serverVersionOf(info);
  return server ? { server, nodeConfigServed } : { nodeConfigServed };
}

/** Finds the channel once, as a component does at start. */
export async function discoverChannel(
  client: RestClient,
  choice: ChannelChoice = 'auto',
  signal?: AbortSignal,
): Promise<ChannelDecision> {
  return chooseChannel(await channelFacts(client, signal), choice);
}
