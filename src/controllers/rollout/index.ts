// The rollout controller as its hosts start it (`dkc server`'s leader-elected manager, `dkc controller`): it drives
// NodeConfigRollouts (dkc.io/v1alpha1) to Succeeded, Halted or Reverted, keeping all its state in the API.

import type { ControllerFactory } from '../types.js';
import { RolloutController } from './controller.js';

export const rolloutController: ControllerFactory = async (ctx) => {
  const controller = new RolloutController({ client: ctx.client, clock: ctx.clock, signal: ctx.signal, ...(ctx.metrics ? { metrics: ctx.metrics } : {}) });
  await controller.start();
  return { stop: () => controller.stop() };
};

export { RolloutController, type RolloutClient, type RolloutControllerOptions } from './controller.js';
export { planRollout, type Plan, type PlanInput } from './plan.js';
