// What this boot decided and what it decided from. bootstrap() fills it once, before the agent starts; afterwards
// only the decision changes, when the NodeConfigPolicies that govern the node change and the same records are decided
// again (the controller's recheck). The trial, the sync and the Warning event read it.

import type { BootDecision } from './bootstrap.js';
import type { Rejection } from './rejection.js';
import type { NodeConfigSource } from './source.js';

/** What bootstrap decided from, to decide again when the governing policies change. */
export interface BootRecords {
  assigned: NodeConfigSource | undefined;
  lastKnownGood: NodeConfigSource | undefined;
  startsWithoutHealthy: number;
}

export class BootState<C> {
  decision: BootDecision<C> | undefined;
  /** The assigned record as bootstrap read it (undefined when none, or unreadable). */
  assignedAtBoot: NodeConfigSource | undefined;
  /** The assigned config was rejected at boot because its checkpoint was missing (a re-download restarts). */
  assignedCheckpointMissing = false;
  /** Set when a config is assigned: what the decision was made from. */
  records: BootRecords | undefined;

  /** The assigned config this boot runs, or undefined when it runs another. */
  runsAssigned(): NodeConfigSource | undefined {
    return this.decision?.kind === 'run' && this.decision.use === 'assigned' ? this.assignedAtBoot : undefined;
  }

  /** Why this boot rejected the assigned config (load, validation or crash loop), or undefined when it did not. */
  rejection(): Rejection | undefined {
    const d = this.decision;
    if (d?.kind !== 'run' || !d.rejected || !this.assignedAtBoot || d.use === 'assigned') return undefined;
    return { assigned: this.assignedAtBoot, stage: d.rejected.stage, detail: d.rejected.detail, runs: d.use };
  }
}
