// The scheduler: Pods with no node are bound to one that fits (./fit.ts, ./controller.ts).

import type { ControllerFactory } from '../types.js';
import { Scheduler } from './controller.js';

export { schedule, filterNode, type Candidate, type ScheduleResult } from './fit.js';
export { awaitsScheduling, SCHEDULER_NAME } from './controller.js';

export function schedulerController(): ControllerFactory {
  return async (ctx) => {
    const controller = new Scheduler(ctx);
    await controller.start();
    return controller;
  };
}
