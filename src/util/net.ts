// Loopback helpers for starting local processes on ports that are free.

import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

/** Linux's default range for ephemeral ports, where the kernel picks when none is read. */
const DEFAULT_EPHEMERAL: readonly [number, number] = [32768, 60999];
/** How many ports below the ephemeral range a choice is made from. */
const CHOICE_SPAN = 16_000;
/** Random ports tried before the system is asked for one. */
const TRIES = 40;
/** How many of the ports handed out are remembered (the oldest forgotten first). */
const REMEMBERED = 4_096;

/**
 * The ports this process handed out, never handed out again: a port is released between its probe and the moment
 * its process binds it (an agent starting takes a second), so a second probe finds it free. Random choices among a few
 * thousand ports meet often enough (a cluster of five nodes asks for eleven) that `dkc up` gave two of its own
 * listeners the same port: that node could never start.
 */
const handedOut = new Set<number>();

function remember(port: number): number {
  handedOut.add(port);
  if (handedOut.size > REMEMBERED) handedOut.delete(handedOut.values().next().value!);
  return port;
}

/** The range the kernel takes ports from for outgoing connections and binds to port 0. */
function ephemeralRange(): readonly [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low!, high!];
  } catch {
    // not Linux: the default range
  }
  return DEFAULT_EPHEMERAL;
}

/** Whether `port` on `host` can be bound now (released again at once). */
function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err),
    );
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** A port the system picks on `host` (bound to 0, then released). */
function systemPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A port that was free a moment ago on `host` and that this process has not handed out before, chosen at random just
 * below the ephemeral range: between now and the moment its process binds it, neither an outgoing connection nor
 * another process's bind to port 0 can take it. (A node agent keeps its port across restarts, so a port taken
 * meanwhile kept it from starting at all.) When no port there is free, or the range leaves no room below it, one the
 * system picks.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const top = ephemeralRange()[0] - 1;
  const bottom = Math.max(1024, top - CHOICE_SPAN);
  for (let i = 0; top > bottom && i < TRIES; i++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom + 1));
    if (!handedOut.has(port) && (await canBind(port, host))) return remember(port);
  }
  return remember(await systemPort(host));
}
