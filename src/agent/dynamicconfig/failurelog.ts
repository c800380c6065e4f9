// The controller's informers fail quietly by design (they retry on their own): each failure is logged, but a list
// that keeps failing writes one line per interval, counting the failures it held back, not one line per retry.

import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { logError } from './log.js';

/** Logs an informer's failures: the first at once, then at most one line per interval counting the rest. */
export class FailureLog {
  private lastLogged: number | undefined;
  private suppressed = 0;
  constructor(
    private readonly what: string,
    private readonly intervalMs: number,
    private readonly clock: Clock,
  ) {}

  failed(err: unknown): void {
    const now = this.clock.monotonicMs();
    if (this.lastLogged !== undefined && now - this.lastLogged < this.intervalMs) {
      this.suppressed++;
      return;
    }
    const more = this.suppressed > 0 ? ` (${this.suppressed} more failures since the last report)` : '';
    this.suppressed = 0;
    this.lastLogged = now;
    logError(`failed to list or watch ${this.what}${more}, error: ${errorMessage(err)}`);
  }
}
