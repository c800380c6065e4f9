// Loopback ports and bounded polling for the agent tests.

import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port that was free a moment ago (bound to 0, then released). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, host, () => resolve());
  });
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Polls `cond` every `everyMs` until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(cond: () => boolean | Promise<boolean>, timeoutMs = 5000, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return cond();
}
