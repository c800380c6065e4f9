// Bounded polling of observable state for tests: `probe` returns undefined (or throws) until the state is reached.

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000, stepMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
