// Finding the assignment channel at start, against a scripted API server: it asks again while the server cannot
// answer, takes an unregistered Node as assigning nothing, refuses a Node that carries an assignment on the NodeConfig
// channel, ends when the agent stops, and a fleet's shared discovery answers all its nodes from one look (but keeps no
// failure). Preparing the NodeConfig channel creates the node's NodeConfig, owned by its Node, and takes an existing
// one as it is.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/client/index.js';
import { ConfigChannelError, type ChannelDecision } from '../../../src/client/channel.js';
import { nodeChannel, nodeConfigChannel } from '../../../src/agent/dynamicconfig/assignment.js';
import {
  findAssignmentChannel,
  prepareChannel,
  sharedDiscovery,
  type ChannelClient,
  type DiscoveryClient,
} from '../../../src/agent/dynamicconfig/findchannel.js';
import type { Clock } from '../../../src/util/clock.js';

const notFound = () =>
  new ApiError({
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    code: 404,
    reason: 'NotFound',
    message: 'nodes "node-1" not found',
  });
const conflict = () =>
  new ApiError({
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    code: 409,
    reason: 'AlreadyExists',
    message: 'already exists',
  });
const refused = () => new Error('connect ECONNREFUSED 127.0.0.1:6443');

/** A clock whose sleeps end at once, counting them. */
function instantClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => new Date(0),
    monotonicMs: () => 0,
    setTimeout: (fn, ms) => {
      sleeps.push(ms);
      return setImmediate(fn);
    },
    clearTimeout: (h) => clearImmediate(h as NodeJS.Immediate),
  };
}

const decided = (channel: 'node' | 'nodeconfig'): ChannelDecision => ({ channel, says: `config channel: ${channel}` });

/** A client whose GETs answer from `answers` in turn (an Error is thrown), recording paths; creates are recorded. */
function scripted(answers: unknown[]): ChannelClient & { gets: string[]; created: unknown[] } {
  const gets: string[] = [];
  const created: unknown[] = [];
  return {
    gets,
    created,
    async get<T>(path: string): Promise<T> {
      gets.push(path);
      const a = answers.shift();
      if (a instanceof Error) throw a;
      return a as T;
    },
    async create<T>(_path: string, body: unknown): Promise<T> {
      created.push(body);
      return body as T;
    },
  };
}

describe('findAssignmentChannel', () => {
  it('asks again, with growing delays, while the server cannot answer; the Node channel looks at nothing else', async () => {
    const clock = instantClock();
    const answers: (ChannelDecision | Error)[] = [refused(), refused(), decided('node')];
    const client = scripted([]);
    const channel = await findAssignmentChannel({
      client,
      nodeName: 'node-1',
      choice: 'auto',
      discover: async () => {
        const a = answers.shift()!;
        if (a instanceof Error) throw a;
        return a;
      },
      signal: new AbortController().signal,
      clock,
      random: () => 0,
    });
    assert.equal(channel, nodeChannel);
    assert.deepEqual(clock.sleeps, [100, 200]);
    assert.deepEqual(client.gets, []);
  });

  it('on the NodeConfig channel, a Node not registered yet assigns nothing', async () => {
    const client = scripted([notFound()]);
    const channel = await findAssignmentChannel({
      client,
      nodeName: 'node-1',
      choice: 'auto',
      discover: async () => decided('nodeconfig'),
      signal: new AbortController().signal,
    });
    assert.equal(channel, nodeConfigChannel);
    assert.deepEqual(client.gets, ['/api/v1/nodes/node-1']);
  });

  it('on the NodeConfig channel, a Node that carries spec.configSource is refused: channels do not mix', async () => {
    const node = {
      metadata: { name: 'node-1' },
      spec: { configSource: { configMap: { namespace: 'kube-system', name: 'cfg', kubeletConfigKey: 'kubelet' } } },
    };
    const client = scripted([refused(), node]);
    await assert.rejects(
      findAssignmentChannel({
        client,
        nodeName: 'node-1',
        choice: 'nodeconfig',
        discover: async () => decided('nodeconfig'),
        signal: new AbortController().signal,
        clock: instantClock(),
      }),
      (err) =>
        err instanceof ConfigChannelError &&
        err.message ===
          "refusing to mix config channels: this cluster's channel is NodeConfig, but 1 Node(s) carry spec.configSource (node/node-1); move every assignment to one channel first",
    );
    assert.equal(client.gets.length, 2, 'a failed read of the Node is asked again');
  });

  it('a channel the server cannot carry is not asked again', async () => {
    let asked = 0;
    const err = new ConfigChannelError('--config-channel=node, but …');
    await assert.rejects(
      findAssignmentChannel({
        client: scripted([]),
        nodeName: 'node-1',
        choice: 'node',
        discover: async () => {
          asked++;
          throw err;
        },
        signal: new AbortController().signal,
      }),
      (e) => e === err,
    );
    assert.equal(asked, 1);
  });

  it('ends when the agent stops', async () => {
    const stop = new AbortController();
    const found = findAssignmentChannel({
      client: scripted([]),
      nodeName: 'node-1',
      choice: 'auto',
      discover: async () => {
        stop.abort();
        throw refused();
      },
      signal: stop.signal,
    });
    await assert.rejects(found, /the agent stopped before its config channel was found/);
  });
});

describe('sharedDiscovery', () => {
  /** A discovery client: /version answers 1.31, the dkc.io group serves nodeconfigs; every GET is counted. */
  function server(fail: number): DiscoveryClient & { gets: number } {
    let failures = fail;
    const c = {
      gets: 0,
      async get<T>(path: string): Promise<T> {
        c.gets++;
        if (failures > 0) {
          failures--;
          throw refused();
        }
        if (path === '/version') return { major: '1', minor: '31', gitVersion: 'v1.31.0' } as T;
        return { resources: [{ name: 'nodeconfigs' }] } as T;
      },
    };
    return c as unknown as DiscoveryClient & { gets: number };
  }

  it("answers every node from the first node's look, per choice", async () => {
    const discover = sharedDiscovery();
    const a = server(0);
    const b = server(0);
    const first = await Promise.all([discover(a, 'auto'), discover(b, 'auto'), discover(b, 'auto')]);
    assert.deepEqual(new Set(first.map((d) => d.channel)), new Set(['nodeconfig']));
    assert.equal(a.gets, 2);
    assert.equal(b.gets, 0);
    await discover(b, 'nodeconfig');
    assert.equal(b.gets, 2, 'another choice is another look');
  });

  it('keeps no failure: the next node asks again', async () => {
    const discover = sharedDiscovery();
    const flaky = server(1);
    await assert.rejects(discover(flaky, 'auto'), /ECONNREFUSED/);
    assert.equal((await discover(flaky, 'auto')).channel, 'nodeconfig');
  });
});

describe('prepareChannel', () => {
  const node = { metadata: { name: 'node-1', uid: 'uid-1' } };

  it("creates the node's NodeConfig on the NodeConfig channel, owned by its Node and assigning nothing", async () => {
    const client = scripted([]);
    await prepareChannel({
      channel: Promise.resolve(nodeConfigChannel),
      client,
      nodeName: 'node-1',
      node,
      signal: new AbortController().signal,
    });
    assert.deepEqual(client.created, [
      {
        apiVersion: 'dkc.io/v1alpha1',
        kind: 'NodeConfig',
        metadata: {
          name: 'node-1',
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'uid-1' }],
        },
        spec: {},
      },
    ]);
  });

  it('takes an existing NodeConfig as it is, and reads the Node when the agent did not register it', async () => {
    const client = scripted([node]);
    client.create = async () => {
      throw conflict();
    };
    await prepareChannel({
      channel: Promise.resolve(nodeConfigChannel),
      client,
      nodeName: 'node-1',
      signal: new AbortController().signal,
    });
    assert.deepEqual(client.gets, ['/api/v1/nodes/node-1']);
  });

  it('creates nothing on the Node channel', async () => {
    const client = scripted([]);
    await prepareChannel({
      channel: Promise.resolve(nodeChannel),
      client,
      nodeName: 'node-1',
      node,
      signal: new AbortController().signal,
    });
    assert.deepEqual(client.created, []);
  });
});
