// The rollout controller as its hosts start it (`dkc server`'s leader-elected manager, `dkc controller`): it drives
// NodeConfigRollouts (dkc.io/v1alpha1) to Succeeded, Halted or Reverted, keeping all its state in the API. Its
// channel (Node or NodeConfig) is the one its host found at start, or, when the host found none, found as it starts.

import type { ConfigChannel } from '../../client/channel.js';
import type { ControllerFactory } from '../types.js';
import { RolloutController } from './controller.js';
import { findChannel } from './findchannel.js';

/** The factory for a controller on `channel`, or on the channel it finds as it starts when none is given. */
export function rolloutControllerOn(channel?: ConfigChannel): ControllerFactory {
  return async (ctx) => {
    const on = channel ?? (await findChannel(ctx.client, 'auto', ctx.signal));
    const controller = new RolloutController({
      client: ctx.client,
      clock: ctx.clock,
      signal: ctx.signal,
      channel: on,
      ...(ctx.metrics ? { metrics: ctx.metrics } : {}),
      ...(ctx.informers ? { informers: ctx.informers } : {}),
    });
    await controller.start();
    return { stop: () => controller.stop() };
  };
}

export const rolloutController: ControllerFactory = rolloutControllerOn();

export { RolloutController, type RolloutClient, type RolloutControllerOptions } from './controller.js';
export { findChannel } from './findchannel.js';
export { planRollout, type Plan, type PlanInput } from './plan/index.js';
