// Bounded polling of observable state for tests: `probe` returns undefined (or throws) until the state is reached.
// A probe that never settles (a request to a process that accepted and hung) counts as a failed try once the
// deadline passes, so a wait always ends by its deadline with what it last saw.

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await beforeDeadline(probe(), deadline, what);
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/** `p`, or a rejection once `deadline` passes with `p` still pending. */
async function beforeDeadline<T>(p: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`a probe for ${what} did not answer before the deadline`)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
