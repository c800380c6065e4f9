// Loopback ports and bounded polling for the agent tests.

export { freePort } from '../../../src/util/net.js';


/** Polls `cond` every `everyMs` until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(cond: () => boolean | Promise<boolean>, timeoutMs = 5000, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return cond();
}
