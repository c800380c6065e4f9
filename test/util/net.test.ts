// freePort chooses below the kernel's ephemeral range, where outgoing connections and binds to port 0 cannot take
// the port before its process binds it, and never gives the same port twice.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { freePort } from '../../src/util/net.js';

const ephemeralLow = (): number => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
};

describe('freePort', () => {
  it('gives a port below the ephemeral range that can be bound, and different ports when asked again', async () => {
    const ports = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const port = await freePort();
      assert.ok(port >= 1024 && port < ephemeralLow(), `${port}`);
      ports.add(port);
    }
    assert.ok(ports.size > 15, `${ports.size} distinct ports of 20`);
    const port = await freePort();
    const srv = createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => srv.close(resolve));
  });

  it('never hands out a port twice, although each is free again until its process binds it', async () => {
    // 2,000 random choices among 16,000 ports would meet about 125 times.
    const ports = new Set<number>();
    for (let i = 0; i < 2_000; i++) ports.add(await freePort());
    assert.equal(ports.size, 2_000);
  });
});
