// What this controller has written and its informers may not have seen yet. Deciding on an informer's copy that
// predates our own write would misread our own change (a node we just switched would look changed by someone
// else, a status we just wrote would look unwritten), so each write's answer is used until the informer catches up.

import type { KubeObject } from '../../client/index.js';

const DIGITS = /^\d+$/;

/** Whether `seen` is at least as new as `written`. resourceVersions are opaque; ours and etcd's are integers. */
function caughtUp(seen: string | undefined, written: string | undefined, seenAtWrite: string | undefined): boolean {
  if (seen === undefined || written === undefined) return true;
  if (DIGITS.test(seen) && DIGITS.test(written)) return BigInt(seen) >= BigInt(written);
  return seen !== seenAtWrite;
}

export class WrittenObjects<T extends KubeObject> {
  private readonly written = new Map<string, { obj: T; seenAtWrite: string | undefined }>();

  /** Records the server's answer to a write of `key`; `seen` is the informer's copy at that moment. */
  record(key: string, obj: T, seen: T | undefined): void {
    this.written.set(key, { obj, seenAtWrite: seen?.metadata?.resourceVersion });
  }

  /** The informer's copy, unless our own later write is newer. */
  view(key: string, seen: T | undefined): T | undefined {
    const w = this.written.get(key);
    if (!w) return seen;
    if (
      seen === undefined ||
      caughtUp(seen.metadata?.resourceVersion, w.obj.metadata?.resourceVersion, w.seenAtWrite)
    ) {
      this.written.delete(key);
      return seen;
    }
    return w.obj;
  }

  /** Our last write of `key` whatever the informer holds: an object we created that it has not delivered yet. */
  peek(key: string): T | undefined {
    return this.written.get(key)?.obj;
  }

  /** The object is gone: nothing we wrote about it matters any more. */
  forget(key: string): void {
    this.written.delete(key);
  }
}
