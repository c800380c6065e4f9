// The ReplicaSet controller: as many Pods from the template as the ReplicaSet asks for, its orphans adopted, what no
// longer matches released, and the status counted (./decide.ts, ./rank.ts, ./status.ts, ./controller.ts).

import type { ControllerFactory } from '../types.js';
import { ReplicaSetController } from './controller.js';

export { decideReplicaSet, replicaSetPod, BURST_REPLICAS } from './decide.js';

export function replicaSetController(): ControllerFactory {
  return async (ctx) => {
    const controller = new ReplicaSetController(ctx);
    await controller.start();
    return controller;
  };
}
