// The taint eviction controller: Pods on a node with NoExecute taints they do not tolerate are deleted, at once or
// when their tolerationSeconds run out (./decide.ts, ./controller.ts).

import type { ControllerFactory } from '../types.js';
import { TaintEviction } from './controller.js';

export { decideEviction, type EvictionDecision, type EvictionInput } from './decide.js';

export function taintEvictionController(): ControllerFactory {
  return async (ctx) => {
    const controller = new TaintEviction(ctx);
    await controller.start();
    return controller;
  };
}
