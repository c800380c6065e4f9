// The Eviction API's decision (workloads.md §2.2–2.3, kube's pod eviction REST): given the Pod, the
// PodDisruptionBudgets of its namespace and the time, whether the Pod is deleted straight away (not running, already
// terminating, no budget, or unhealthy within the unhealthyPodEvictionPolicy), deleted after the one matching budget
// gives up a disruption (its new status), or refused — 429 while the budget is unprocessed (Retry-After 10) or has
// no disruption left, 403 for a negative budget or too many unconfirmed evictions, 500 for more than one budget.
// Pure: the caller reads, writes the budget's status with a resourceVersion precondition, and deletes.

import { StatusError, errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { matchesLabelRequirement, objectSelectorRequirements, type ObjectLabelSelector } from '../../api/selectors.js';
import { evictionText } from './messages.js';
import type { PodObject } from './types.js';

/** kube's MaxDisruptedPodSize. */
export const MAX_DISRUPTED_PODS = 2000;
const RETRY_AFTER_SECONDS = 10;

export interface BudgetCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

export interface BudgetStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string> | null;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  conditions?: BudgetCondition[] | null;
}

export interface Budget extends KubeObject {
  spec?: { selector?: ObjectLabelSelector | null; unhealthyPodEvictionPolicy?: string };
  status?: BudgetStatus;
}

export type EvictionDecision =
  /** Delete the Pod; `precondition`: the resourceVersion the delete must still find (the caller's own wins). */
  | { action: 'delete'; precondition?: string }
  /** Write the budget's `status` (at its resourceVersion), then delete the Pod. */
  | { action: 'decrement'; budget: Budget; status: BudgetStatus }
  | { action: 'refuse'; error: StatusError };

const PDB_RESOURCE = { group: 'policy', name: 'poddisruptionbudget' };

/** createTooManyRequestsError: the budget (or the Pod the handler pinned) changed under the eviction; try again. */
export function stillProcessing(budgetName: string): StatusError {
  return tooManyRequests(RETRY_AFTER_SECONDS, evictionText.processing(budgetName));
}

function tooManyRequests(retryAfterSeconds: number, cause: string): StatusError {
  const err = errors.tooManyRequests(evictionText.violates, retryAfterSeconds);
  err.status.details = { ...err.status.details, causes: [{ reason: 'DisruptionBudget', message: cause }] };
  if (retryAfterSeconds === 0) delete err.status.details.retryAfterSeconds;
  return err;
}

/** Whether a budget's selector selects these labels: null selects nothing, {} everything, an invalid one nothing. */
function selects(budget: Budget, labels: Readonly<Record<string, string>> | undefined): boolean {
  const selector = budget.spec?.selector;
  if (selector === undefined || selector === null) return false;
  try {
    return objectSelectorRequirements(selector).every((r) => matchesLabelRequirement(r, labels));
  } catch {
    return false;
  }
}

const isReady = (pod: PodObject) =>
  (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** checkAndDecrement: the budget's status after giving up one disruption, or its refusal. */
function decrement(budget: Budget, podName: string, now: string, dryRun: boolean): EvictionDecision {
  const name = budget.metadata.name ?? '';
  const st = budget.status ?? {};
  const allowed = st.disruptionsAllowed ?? 0;
  if ((st.observedGeneration ?? 0) < (budget.metadata.generation ?? 0))
    return { action: 'refuse', error: tooManyRequests(RETRY_AFTER_SECONDS, evictionText.processing(name)) };
  if (allowed < 0) return { action: 'refuse', error: errors.forbidden(PDB_RESOURCE, name, evictionText.negative) };
  if (Object.keys(st.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS)
    return { action: 'refuse', error: errors.forbidden(PDB_RESOURCE, name, evictionText.tooMany) };
  if (allowed === 0) {
    const cause = evictionText.needs(name, st.desiredHealthy ?? 0, st.currentHealthy ?? 0);
    return { action: 'refuse', error: tooManyRequests(0, cause) };
  }
  const status: BudgetStatus = structuredClone(st);
  status.disruptionsAllowed = allowed - 1;
  if (status.disruptionsAllowed === 0) status.conditions = insufficient(st, now);
  if (!dryRun) status.disruptedPods = { ...(st.disruptedPods ?? {}), [podName]: now };
  return { action: 'decrement', budget, status };
}

/** UpdateDisruptionAllowedCondition at zero: DisruptionAllowed False, InsufficientPods (its time kept if it was so). */
function insufficient(st: BudgetStatus, now: string): BudgetCondition[] {
  const others = (st.conditions ?? []).filter((c) => c.type !== 'DisruptionAllowed');
  const old = (st.conditions ?? []).find((c) => c.type === 'DisruptionAllowed');
  const condition: BudgetCondition = {
    type: 'DisruptionAllowed',
    status: 'False',
    reason: 'InsufficientPods',
    message: '',
    observedGeneration: st.observedGeneration ?? 0,
    lastTransitionTime: old?.status === 'False' && old.lastTransitionTime ? old.lastTransitionTime : now,
  };
  return [...others, condition];
}

export interface EvictionRequest {
  /** metav1 time of the eviction (an RFC 3339 string). */
  now: string;
  dryRun?: boolean;
}

/** The decision for evicting `pod`, with the PodDisruptionBudgets of its namespace. */
export function decideEviction(pod: PodObject, budgets: readonly Budget[], req: EvictionRequest): EvictionDecision {
  const phase = pod.status?.phase ?? '';
  const rv = pod.metadata.resourceVersion;
  const pinned = rv !== undefined ? { precondition: rv } : {};
  if (phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp) return { action: 'delete' };
  if (phase === 'Pending') return { action: 'delete', ...pinned };
  const matching = budgets.filter((b) => selects(b, pod.metadata.labels));
  if (matching.length === 0) return { action: 'delete' };
  if (matching.length > 1)
    return { action: 'refuse', error: new StatusError({ code: 500, message: evictionText.multiple }) };
  const budget = matching[0]!;
  if (!isReady(pod)) {
    const st = budget.status ?? {};
    if (budget.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return { action: 'delete', ...pinned };
    const desired = st.desiredHealthy ?? 0;
    if ((st.currentHealthy ?? 0) >= desired && desired > 0) return { action: 'delete', ...pinned };
  }
  return decrement(budget, pod.metadata.name ?? '', req.now, req.dryRun === true);
}
