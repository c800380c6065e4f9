// The disruption controller: each PodDisruptionBudget's status — how many of its Pods are healthy, how many must be,
// how many may go — kept from its Pods and their controllers' scale (./compute.ts, ./owners.ts, ./controller.ts).

import type { ControllerFactory } from '../types.js';
import { DisruptionController } from './controller.js';

export { syncDisruption, DELETION_TIMEOUT_MS, type DisruptionInput, type DisruptionSync } from './compute.js';
export { findController, type Getter } from './owners.js';

export function disruptionController(): ControllerFactory {
  return async (ctx) => {
    const controller = new DisruptionController(ctx);
    await controller.start();
    return controller;
  };
}
