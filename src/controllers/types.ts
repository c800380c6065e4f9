// What every controller shares: it is started with an API client and stopped by its host (the leader-elected
// manager inside `dkc server`, or `dkc controller`). Controllers talk to the API only through the client and keep
// their state in the API, so a new leader carries on where the last one stopped.

import type { RestClient } from '../client/index.js';
import type { SharedInformerFactory } from '../client/sharedinformers.js';
import type { Clock } from '../util/clock.js';
import type { Registry } from '../util/prom.js';

export interface ControllerContext {
  /** Authenticated as the controller's identity (system:dkc:controller, or the controller's own where it has one). */
  client: RestClient;
  clock: Clock;
  /** Aborted when leadership is lost or the host stops: the controller stops acting at once. */
  signal: AbortSignal;
  /** Where the controller's metrics go while it runs (removed again when it stops); none when absent. */
  metrics?: Registry;
  /**
   * One informer per resource for every controller of this leadership term (client-go's shared informer factory),
   * opened with `client`: the host stops it once they have all stopped. A controller given none makes its own.
   */
  informers?: SharedInformerFactory;
}

export interface RunningController {
  /** Stops informers and timers; resolves when no write of this controller is in flight any more. */
  stop(): Promise<void>;
}

export type ControllerFactory = (ctx: ControllerContext) => Promise<RunningController>;
