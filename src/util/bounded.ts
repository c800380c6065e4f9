// Work over many items with a bound on how much is in flight at once.

/**
 * Runs `fn` over `items` with at most `limit` calls in flight and resolves with the results in the items' order.
 * Every item is attempted; if any call failed, it rejects with the first failure once all have settled.
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failure) throw failure.error;
  return out;
}

/** mapBounded for calls run for their effect only. */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  await mapBounded(items, limit, fn);
}
