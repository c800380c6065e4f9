// Loopback helpers for starting local processes on ports that are free.

import { createServer, type AddressInfo } from 'node:net';

/** A port that was free a moment ago on `host` (bound to 0, then released). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
