import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { StatusError } from '../../src/api/errors.js';
import type { KubeObject } from '../../src/api/types.js';
import {
  canonicalIp,
  isOwnAddress,
  isProxyable,
  NodeProxy,
  nodeEndpoint,
  type ProxyTarget,
} from '../../src/server/proxy.js';

describe('isOwnAddress', () => {
  const locals = ['127.0.0.1', '::1', '10.1.2.3', 'fe80::1'];
  const cases: [string, number, { address: string; port: number }, boolean][] = [
    ['127.0.0.1', 6443, { address: '127.0.0.1', port: 6443 }, true],
    ['127.0.0.2', 6443, { address: '127.0.0.1', port: 6443 }, true],
    ['::1', 6443, { address: '127.0.0.1', port: 6443 }, true],
    ['::ffff:127.0.0.1', 6443, { address: '127.0.0.1', port: 6443 }, true],
    ['127.0.0.1', 10250, { address: '127.0.0.1', port: 6443 }, false],
    ['10.1.2.3', 6443, { address: '127.0.0.1', port: 6443 }, false],
    ['10.1.2.3', 6443, { address: '0.0.0.0', port: 6443 }, true],
    ['10.1.2.3', 6443, { address: '::', port: 6443 }, true],
    ['127.0.0.1', 6443, { address: '::', port: 6443 }, true],
    ['10.9.9.9', 6443, { address: '0.0.0.0', port: 6443 }, false],
    ['10.1.2.3', 6443, { address: '10.1.2.3', port: 6443 }, true],
    ['127.0.0.1', 6443, { address: '10.1.2.3', port: 6443 }, false],
  ];
  for (const [ip, port, listen, own] of cases) {
    it(`${ip}:${port} against a listener on ${listen.address}:${listen.port} → ${own}`, () => {
      assert.equal(isOwnAddress(ip, port, listen, locals), own);
    });
  }
});

describe('canonicalIp', () => {
  const cases: [string, string | undefined][] = [
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['::1', '0:0:0:0:0:0:0:1'],
    ['0:0:0:0:0:0:0:1', '0:0:0:0:0:0:0:1'],
    ['::', '0:0:0:0:0:0:0:0'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1'],
    ['2001:db8::1.2.3.4', '2001:db8:0:0:0:0:102:304'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    ['::1.2.3.4', '0:0:0:0:0:0:102:304'],
    ['node-1', undefined],
  ];
  for (const [ip, want] of cases) it(`${ip} → ${String(want)}`, () => assert.equal(canonicalIp(ip), want));
});

describe("isProxyable: IsProxyableIP, the server's own listener, and loopback only for a server on loopback", () => {
  const locals = ['127.0.0.1', '::1', '10.1.2.3'];
  const onLoopback = { address: '127.0.0.1', port: 6443 };
  const onAll = { address: '0.0.0.0', port: 6443 };
  const onHost = { address: '10.1.2.3', port: 6443 };
  const cases: [string, number, { address: string; port: number }, boolean][] = [
    // A local cluster: its agents are loopback addresses of the server's own host.
    ['127.0.0.1', 10250, onLoopback, true],
    ['127.0.3.7', 10250, onLoopback, true],
    ['::1', 10250, onLoopback, true],
    ['127.0.0.1', 6443, onLoopback, false],
    ['::ffff:7f00:1', 6443, onLoopback, false],
    // Connecting to an unspecified address reaches the local host.
    ['0.0.0.0', 6443, onLoopback, false],
    ['0.0.0.0', 10250, onLoopback, false],
    ['::', 10250, onLoopback, false],
    ['::ffff:0.0.0.0', 10250, onLoopback, false],
    ['0.1.2.3', 10250, onLoopback, false],
    // Link-local (the cloud metadata address among them), multicast, broadcast.
    ['169.254.169.254', 80, onLoopback, false],
    ['fe80::1', 10250, onLoopback, false],
    ['224.0.0.1', 10250, onLoopback, false],
    ['239.255.255.250', 10250, onLoopback, false],
    ['ff02::1', 10250, onLoopback, false],
    ['255.255.255.255', 10250, onLoopback, false],
    // Global unicast addresses of other hosts.
    ['10.9.9.9', 10250, onLoopback, true],
    ['192.168.1.20', 6443, onLoopback, true],
    ['2001:db8::5', 10250, onLoopback, true],
    // A server on a routable or wildcard address refuses loopback as kube-apiserver does, and its own addresses.
    ['127.0.0.1', 10250, onAll, false],
    ['127.0.0.1', 10250, onHost, false],
    ['10.1.2.3', 6443, onAll, false],
    ['10.1.2.3', 6443, onHost, false],
    ['10.1.2.3', 10250, onAll, true],
    ['10.9.9.9', 10250, onHost, true],
    ['not-an-ip', 10250, onLoopback, false],
  ];
  for (const [ip, port, listen, ok] of cases) {
    it(`${ip}:${port} with the server on ${listen.address}:${listen.port} → ${ok ? 'proxied' : 'refused'}`, () => {
      assert.equal(isProxyable(ip, port, listen, locals), ok);
    });
  }
});

describe('NodeProxy.resolveTarget', () => {
  const proxy = new NodeProxy({ certPem: '', keyPem: '' });
  proxy.setListening({ address: '127.0.0.1', port: 6443 });
  after(() => proxy.close());

  async function refusal(target: ProxyTarget): Promise<StatusError> {
    try {
      await proxy.resolveTarget(target);
    } catch (err) {
      return err as StatusError;
    }
    assert.fail('expected a refusal');
  }

  it("reaches the node's own kubelet port", async () => {
    assert.deepEqual(
      await proxy.resolveTarget({ node: 'node-1', host: '127.0.0.1', port: 10250, kubeletPort: 10250 }),
      { host: '127.0.0.1', port: 10250 },
    );
  });

  it('refuses a port the node does not advertise as its kubelet port, with 400', async () => {
    const err = await refusal({ node: 'node-1', host: '127.0.0.1', port: 10251, kubeletPort: 10250 });
    assert.equal(err.code, 400);
    assert.equal(err.message, 'port 10251 is not the kubelet port of node "node-1"');
  });

  it('checks the address first, as kube-apiserver does: the server\'s own port is "address not allowed"', async () => {
    const err = await refusal({ node: 'node-1', host: '127.0.0.1', port: 6443, kubeletPort: 10250 });
    assert.equal(err.code, 400);
    assert.equal(err.message, 'address not allowed');
    assert.equal(
      (await refusal({ node: 'n', host: '0.0.0.0', port: 10250, kubeletPort: 10250 })).message,
      'address not allowed',
    );
  });

  it('checks every address a host name resolves to', async () => {
    // localhost resolves to loopback only: allowed for a server on loopback, but not at the server's own port.
    assert.equal(
      (await proxy.resolveTarget({ node: 'n', host: 'localhost', port: 10250, kubeletPort: 10250 })).port,
      10250,
    );
    assert.equal(
      (await refusal({ node: 'n', host: 'localhost', port: 6443, kubeletPort: 6443 })).message,
      'address not allowed',
    );
  });
});

describe('nodeEndpoint', () => {
  const node = (status: Record<string, unknown>): KubeObject => ({ metadata: { name: 'node-1' }, status });
  it('aims at the preferred address and the advertised kubelet port, or at the port asked for', () => {
    const n = node({
      addresses: [
        { type: 'Hostname', address: 'h' },
        { type: 'InternalIP', address: '10.0.0.5' },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    });
    assert.deepEqual(nodeEndpoint(n), { node: 'node-1', host: '10.0.0.5', port: 10250, kubeletPort: 10250 });
    assert.deepEqual(nodeEndpoint(n, '10255'), { node: 'node-1', host: '10.0.0.5', port: 10255, kubeletPort: 10250 });
  });
  it('knows no kubelet port when the node advertises none', () => {
    const n = node({ addresses: [{ type: 'InternalIP', address: '10.0.0.5' }] });
    assert.equal(nodeEndpoint(n, '10250').kubeletPort, 0);
    assert.throws(() => nodeEndpoint(n), /no kubelet port known for node "node-1"/);
  });
});
