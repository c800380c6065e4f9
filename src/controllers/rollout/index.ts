// PLACEHOLDER until the rollout controller lands: the export the manager loads, doing nothing. Replace this file
// with the real controller (src/controllers/rollout/**); nothing else depends on its contents.

import type { ControllerFactory } from '../types.js';

export const rolloutController: ControllerFactory = async () => ({ stop: async () => undefined });
