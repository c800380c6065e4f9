// A controller's start waits for its informers' first lists, but never past its stop: an informer that cannot list
// (a right the controller's identity lacks) retries for ever, and the host's stop must not wait on it.

/** Resolves true once every informer has synced, false as soon as `signal` aborts first. */
export async function syncedOrAborted(
  signal: AbortSignal,
  ...informers: readonly { whenSynced(): Promise<boolean> }[]
): Promise<boolean> {
  if (signal.aborted) return false;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const synced = Promise.all(informers.map((i) => i.whenSynced())).then((all) => all.every(Boolean));
    return await Promise.race([synced, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
