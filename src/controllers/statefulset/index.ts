// The StatefulSet controller: Pods with a stable identity `<set>-<ordinal>`, made and removed in order, replaced from
// the highest ordinal when the template changes, and the status counted (./identity.ts, ./revisions.ts, ./decide.ts,
// ./status.ts, ./controller.ts).

import type { ControllerFactory } from '../types.js';
import { StatefulSetController } from './controller.js';

export function statefulSetController(): ControllerFactory {
  return async (ctx) => {
    const controller = new StatefulSetController(ctx);
    await controller.start();
    return controller;
  };
}
