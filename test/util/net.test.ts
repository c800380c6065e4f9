// freePort chooses below the kernel's ephemeral range, where outgoing connections and binds to port 0 cannot take
// the port before its process binds it.

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
});
