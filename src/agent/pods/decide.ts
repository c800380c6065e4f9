// What the node does next for one Pod, as one pure function of the Pod as the API has it (or gone) and what the
// runtime runs for it: the kubelet's pod worker in one step. The caller does what it says (for a new Pod: asks the
// node's admission, ./admission.ts, then starts or rejects it) and asks again when the Pod or the runtime changes,
// so every answer is a step that may be repeated.

import type { Pod } from '../../api/workloads.js';
import type { RunningPod } from './types.js';

export type PodAction =
  /** Nothing to do: the Pod is as the node reports it. */
  | { kind: 'none' }
  /** A Pod new to the node: admit it (start its containers, report it Running) or refuse it (report it Failed). */
  | { kind: 'admit' }
  /** Write the Pod's status from what the runtime runs. */
  | { kind: 'report' }
  /** A graceful delete: stop the containers (a simulated container ends at once), then report it. */
  | { kind: 'stop' }
  /** Stopped and reported: confirm the delete (grace 0, the Pod's uid as precondition) and forget it. */
  | { kind: 'confirm' }
  /** The API has no such Pod (deleted by force, or another Pod now has its name): end what runs for it. */
  | { kind: 'forget' };

export interface PodInput {
  /** The Pod as the API has it; undefined when it is gone. */
  pod: Pod | undefined;
  /** What the runtime runs for this uid; undefined when nothing. */
  running: RunningPod | undefined;
  /** Whether the status the API has is the one the node would write now (no write needed). */
  reported: boolean;
}

const terminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** The next step for one Pod bound to this node. Pure. */
export function decidePod(input: PodInput): PodAction {
  const { pod, running } = input;
  if (!pod) return running ? { kind: 'forget' } : { kind: 'none' };
  if (pod.metadata?.deletionTimestamp) {
    if (running && running.stoppedAt === undefined) return { kind: 'stop' };
    if (running && !input.reported) return { kind: 'report' };
    return { kind: 'confirm' };
  }
  if (running) return input.reported ? { kind: 'none' } : { kind: 'report' };
  return terminal(pod) ? { kind: 'none' } : { kind: 'admit' };
}
