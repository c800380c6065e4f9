// The DaemonSet controller: a daemon Pod on every node that should run one, bound to it, none elsewhere, replaced
// node by node within maxUnavailable when the template changes, and the status counted (./placement.ts,
// ./decide.ts, ./status.ts, ./controller.ts).

import type { ControllerFactory } from '../types.js';
import { DaemonSetController } from './controller.js';

export function daemonSetController(): ControllerFactory {
  return async (ctx) => {
    const controller = new DaemonSetController(ctx);
    await controller.start();
    return controller;
  };
}
