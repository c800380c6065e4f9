// Which channel carries assignments: the decision as a table (server release × whether NodeConfig is served × the
// --config-channel flag), the refusal to mix channels, and discovery against a real dkc server with and without
// --emulated-version 1.31.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigChannelError,
  RestClient,
  chooseChannel,
  discoverChannel,
  mixedChannels,
  parseChannelChoice,
  serverVersionOf,
  type ChannelChoice,
  type ChannelFacts,
} from '../../src/client/index.js';
import { startServer } from '../helpers/server.js';

const v = (minor: number): NonNullable<ChannelFacts['server']> => ({ major: 1, minor, gitVersion: `v1.${minor}.0` });

const table: { server?: number; served: boolean; choice: ChannelChoice; want: string }[] = [
  { server: 22, served: false, choice: 'auto', want: 'node' },
  { server: 23, served: true, choice: 'auto', want: 'node' },
  { server: 24, served: true, choice: 'auto', want: 'nodeconfig' },
  { server: 31, served: true, choice: 'auto', want: 'nodeconfig' },
  { server: 31, served: false, choice: 'auto', want: 'error: apply deploy/crds/nodeconfigs.dkc.io.yaml' },
  { server: 22, served: true, choice: 'nodeconfig', want: 'nodeconfig' },
  {
    server: 22,
    served: false,
    choice: 'nodeconfig',
    want: 'error: --config-channel=nodeconfig, but nodeconfigs.dkc.io is not served',
  },
  { server: 22, served: true, choice: 'node', want: 'node' },
  {
    server: 31,
    served: true,
    choice: 'node',
    want: 'error: --config-channel=node, but the API server (v1.31.0) drops',
  },
  { served: true, choice: 'auto', want: 'nodeconfig' },
  { served: false, choice: 'auto', want: 'node' },
];

describe('chooseChannel', () => {
  for (const row of table) {
    it(`server ${row.server ? `1.${row.server}` : '(no version)'}, NodeConfig ${row.served ? 'served' : 'not served'}, --config-channel=${row.choice}: ${row.want}`, () => {
      const facts: ChannelFacts = row.server
        ? { server: v(row.server), nodeConfigServed: row.served }
        : { nodeConfigServed: row.served };
      if (row.want.startsWith('error: ')) {
        assert.throws(
          () => chooseChannel(facts, row.choice),
          (err: unknown) => err instanceof ConfigChannelError && err.message.includes(row.want.slice(7)),
        );
      } else {
        const d = chooseChannel(facts, row.choice);
        assert.equal(d.channel, row.want);
        assert.match(d.says, row.want === 'node' ? /^config channel: Node \(/ : /^config channel: NodeConfig \(/);
        assert.equal(d.says.includes('\n'), false);
      }
    });
  }

  it('reads /version as providers write it, and takes only the three choices', () => {
    assert.deepEqual(serverVersionOf({ major: '1', minor: '31+', gitVersion: 'v1.31.2-eks' }), {
      major: 1,
      minor: 31,
      gitVersion: 'v1.31.2-eks',
    });
    assert.equal(serverVersionOf({ gitVersion: 'v0.0.0-master' }), undefined);
    assert.equal(parseChannelChoice('nodeconfig'), 'nodeconfig');
    assert.throws(() => parseChannelChoice('nodes'), {
      message: 'invalid --config-channel "nodes": must be one of auto, node, nodeconfig',
    });
  });
});

describe('mixedChannels', () => {
  it('refuses assignments on the channel not in use, naming one', () => {
    assert.equal(mixedChannels('node', { nodes: ['node-1'], nodeConfigs: [] }), undefined);
    assert.equal(mixedChannels('nodeconfig', { nodes: [], nodeConfigs: ['node-1'] }), undefined);
    assert.match(
      mixedChannels('node', { nodes: ['node-1'], nodeConfigs: ['node-2', 'node-3'] })?.message ?? '',
      /channel is Node, but 2 NodeConfig\(s\) carry spec.configSource \(nodeconfig\/node-2\)/,
    );
    assert.match(
      mixedChannels('nodeconfig', { nodes: ['node-4'], nodeConfigs: [] })?.message ?? '',
      /channel is NodeConfig, but 1 Node\(s\) carry spec.configSource \(node\/node-4\)/,
    );
  });
});

describe('discoverChannel against dkc server', () => {
  for (const [args, want] of [
    [[], 'node'],
    [['--emulated-version', '1.31'], 'nodeconfig'],
  ] as const) {
    it(`dkc server ${args.join(' ') || '(default)'}: ${want}`, async () => {
      const server = await startServer([...args]);
      const client = await RestClient.fromKubeconfig(server.kubeconfig, { timeoutMs: 10_000 });
      try {
        const d = await discoverChannel(client);
        assert.equal(d.channel, want);
        assert.match(d.says, want === 'node' ? /keeps the Node's fields/ : /\(v1\.31\.0\) drops/);
        if (want === 'nodeconfig') await assert.rejects(discoverChannel(client, 'node'), ConfigChannelError);
      } finally {
        client.close();
        await server.cleanup();
      }
    });
  }
});
