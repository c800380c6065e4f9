// The garbage collector, as kube-controller-manager runs it: objects whose owners are all gone are deleted, owners
// deleted in the foreground wait for their blocking dependents, owners deleted with `orphan` first release them.

import type { ControllerFactory } from '../types.js';
import { GarbageCollector } from './controller.js';

export { decideDependent, decideForegroundOwner, ownerState, type Action, type OwnerState } from './decide.js';

export function garbageCollectorController(opts: { resyncMs?: number } = {}): ControllerFactory {
  return async (ctx) => {
    const controller = new GarbageCollector({
      ...ctx,
      ...(opts.resyncMs !== undefined ? { resyncMs: opts.resyncMs } : {}),
    });
    await controller.start();
    return controller;
  };
}
