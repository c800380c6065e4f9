// The Deployment controller: a ReplicaSet per template, scaled by the strategy (RollingUpdate, Recreate) from the old
// ones to the new, old revisions cleaned up past the history limit, and the status and conditions kubectl reads
// (./decide.ts, ./replicasets.ts, ./status.ts, ./controller.ts).

import type { ControllerFactory } from '../types.js';
import { DeploymentController } from './controller.js';

export { decideDeployment, newReplicaSetFor } from './decide.js';
export { rolloutStatusMessage } from './rolloutstatus.js';

export function deploymentController(): ControllerFactory {
  return async (ctx) => {
    const controller = new DeploymentController(ctx);
    await controller.start();
    return controller;
  };
}
