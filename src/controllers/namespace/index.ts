// The namespace controller, as kube-controller-manager runs it: a namespace being deleted has everything in it
// deleted (every namespaced resource, built in or custom), its deletion conditions kept up to date, and, once nothing
// is left, the `kubernetes` finalizer removed so the API server can remove it.

import type { ControllerFactory } from '../types.js';
import { NamespaceController } from './controller.js';

export function namespaceController(opts: { syncPeriodMs: number }): ControllerFactory {
  return async (ctx) => {
    const controller = new NamespaceController({ ...ctx, syncPeriodMs: opts.syncPeriodMs });
    await controller.start();
    return controller;
  };
}
