// Work over many items with a bound on how much is in flight at once.

/**
 * Runs `fn` over `items` with at most `limit` calls in flight. Every item is attempted; if any call failed, the
 * returned promise rejects with the first failure once all have settled.
 */
export async function forEachBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      try {
        await fn(items[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failure) throw failure.error;
}
