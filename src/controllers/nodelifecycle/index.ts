// The node lifecycle controller, as kube-controller-manager runs it: a node whose Lease and status stop moving for the
// grace period gets its conditions set to Unknown and the node.kubernetes.io/unreachable NoSchedule taint; the taint
// goes when the node reports Ready again.

import type { ControllerFactory } from '../types.js';
import { NodeLifecycle } from './controller.js';

export {
  conditionsForSilentNode,
  observeHealth,
  silentTooLong,
  taintsFor,
  TAINT_NOT_READY,
  TAINT_UNREACHABLE,
  type NodeHealth,
} from './health.js';

export function nodeLifecycleController(opts: { gracePeriodMs: number }): ControllerFactory {
  return async (ctx) => {
    const controller = new NodeLifecycle({ ...ctx, gracePeriodMs: opts.gracePeriodMs });
    await controller.start();
    return controller;
  };
}
