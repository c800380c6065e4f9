// The disruption controller's sync of one PodDisruptionBudget, as kube-controller-manager computes it
// (pkg/controller/disruption/disruption.go trySync, failSafe; component-helpers apps/poddisruptionbudget): from the
// PDB, the pods of its namespace and the scale of the controllers that own the selected pods, the status to write,
// the events to record and when to look again. Pure: the controller lists, looks controllers up and writes.
//
// - expectedPods / desiredHealthy: maxUnavailable (number or %) → Σ scale of the distinct owning controllers, minus
//   maxUnavailable scaled with round-up, floored at 0; minAvailable number → the count of selected pods and
//   minAvailable itself; minAvailable % → Σ scale and ceil(Σ scale × %); neither → 0 and 0.
// - Pods with no controllerRef add nothing to the scale and raise the UnmanagedPods warning, not an error.
// - currentHealthy: selected pods not deleting, not disrupted less than 2 minutes ago, and Ready.
// - disruptedPods keeps the entries of pods still there, not deleting and disrupted at most 2 minutes ago; older
//   ones go with a NotDeleted event on the pod; the earliest expiry of those kept is when to sync again.
// - disruptionsAllowed = currentHealthy − desiredHealthy, floored at 0, and 0 whenever expectedPods ≤ 0.
// - Any error (a selector that does not parse, a controller that cannot be found or scaled, a bad IntOrString)
//   leaves the counts as they were, sets disruptionsAllowed 0 and DisruptionAllowed False/SyncFailed with the error,
//   and does not advance observedGeneration.

import { matchesLabels, objectSelectorRequirements, type LabelSelector } from '../../api/selectors.js';
import { controllerOf, isPodReady, isTerminating } from '../../api/pods.js';
import type {
  Condition,
  IntOrString,
  Pod,
  PodDisruptionBudget,
  PodDisruptionBudgetStatus,
} from '../../api/workloads.js';
import { formatTime } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { DISRUPTION_ALLOWED, errors, events as texts, reasons, selectorText } from './messages.js';

/** How long a pod the Eviction API let go may stay before it no longer counts as about to be deleted. */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** What the controller finders found for one controllerRef uid: the controller (its own uid) and its scale. */
export type ControllerLookup = { uid: string; scale: number } | { error: string };

export interface DisruptionInput {
  pdb: PodDisruptionBudget;
  /** The pods of the PDB's namespace, terminal and terminating ones included; the selector is applied here. */
  pods: readonly Pod[];
  /** By the controllerRef uid of a selected pod; absent: no finder resolved it. */
  controllers: ReadonlyMap<string, ControllerLookup>;
  now: number;
}

export interface DisruptionEvent {
  /** The PDB itself, or the named pod of its namespace. */
  on: { kind: 'PodDisruptionBudget' } | { kind: 'Pod'; name: string };
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface DisruptionSync {
  /** The status after the sync (the stored one when nothing changed). */
  status: PodDisruptionBudgetStatus;
  /** Whether the status must be written (UpdateStatus). */
  write: boolean;
  events: DisruptionEvent[];
  /** When to sync again: the earliest expiry among the kept disruptedPods entries. */
  recheckAt?: number;
  /** The sync error, when the status is the failSafe one. */
  error?: string;
}

class SyncError extends Error {}

const onPdb = { kind: 'PodDisruptionBudget' } as const;

export function syncDisruption(input: DisruptionInput): DisruptionSync {
  const { pdb, now } = input;
  const events: DisruptionEvent[] = [];
  const fail = (why: string): DisruptionSync => ({ ...failSafe(pdb, why, now), events, error: why });

  let pods: Pod[];
  try {
    pods = selectPods(pdb, input.pods);
  } catch (e) {
    events.push({
      on: onPdb,
      type: 'Warning',
      reason: texts.noPodsReason,
      message: texts.failedToGetPods(errorMessage(e)),
    });
    return fail(errorMessage(e));
  }
  if (pods.length === 0)
    events.push({ on: onPdb, type: 'Normal', reason: texts.noPodsReason, message: texts.noMatchingPods });

  let counts: ExpectedCounts;
  try {
    counts = expectedPodCount(pdb, pods, input.controllers);
  } catch (e) {
    if (!(e instanceof SyncError)) throw e;
    const message = texts.calculateFailed(e.message);
    events.push({ on: onPdb, type: 'Warning', reason: texts.calculateFailedReason, message });
    return fail(e.message);
  }
  if (counts.unmanaged.length > 0) {
    const message = texts.unmanaged(selectorText(pdb.spec?.selector));
    events.push({ on: onPdb, type: 'Warning', reason: texts.unmanagedReason, message });
  }

  const disrupted = buildDisruptedPods(pdb, pods, now);
  events.push(...disrupted.events);
  const currentHealthy = countHealthy(pods, disrupted.kept, now);
  const result = updateStatus(pdb, currentHealthy, counts, disrupted.kept, now);
  return { ...result, events, ...(disrupted.recheckAt !== undefined ? { recheckAt: disrupted.recheckAt } : {}) };
}

/** The pods of the PDB's namespace its selector matches: null selects none, `{}` all. Throws on a bad selector. */
export function selectPods(pdb: PodDisruptionBudget, pods: readonly Pod[]): Pod[] {
  const sel = pdb.spec?.selector;
  if (sel === undefined || sel === null) return [];
  const reqs: LabelSelector = objectSelectorRequirements(sel);
  const ns = pdb.metadata.namespace;
  return pods.filter(
    (p) => (ns === undefined || p.metadata.namespace === ns) && matchesLabels(reqs, p.metadata.labels),
  );
}

interface ExpectedCounts {
  expectedPods: number;
  desiredHealthy: number;
  unmanaged: string[];
}

function expectedPodCount(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  ctl: DisruptionInput['controllers'],
): ExpectedCounts {
  const { maxUnavailable, minAvailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    const { expected, unmanaged } = expectedScale(pods, ctl);
    const max = scaledValue(maxUnavailable, expected);
    return { expectedPods: expected, desiredHealthy: Math.max(expected - max, 0), unmanaged };
  }
  if (typeof minAvailable === 'number')
    return { expectedPods: pods.length, desiredHealthy: minAvailable, unmanaged: [] };
  if (typeof minAvailable === 'string') {
    const { expected, unmanaged } = expectedScale(pods, ctl);
    return { expectedPods: expected, desiredHealthy: scaledValue(minAvailable, expected), unmanaged };
  }
  return { expectedPods: 0, desiredHealthy: 0, unmanaged: [] };
}

/** Σ scale of the distinct controllers of the pods (getExpectedScale); pods without a controller are unmanaged. */
function expectedScale(
  pods: readonly Pod[],
  ctl: DisruptionInput['controllers'],
): { expected: number; unmanaged: string[] } {
  const scales = new Map<string, number>();
  const unmanaged: string[] = [];
  for (const pod of pods) {
    const ref = controllerOf(pod.metadata);
    if (!ref) {
      unmanaged.push(pod.metadata.name ?? '');
      continue;
    }
    const found = ctl.get(ref.uid);
    if (found === undefined) throw new SyncError(errors.noControllers(pod.metadata.name ?? ''));
    if ('error' in found) throw new SyncError(found.error);
    scales.set(found.uid, found.scale);
  }
  let expected = 0;
  for (const s of scales.values()) expected += s;
  return { expected, unmanaged };
}

/** intstr.GetScaledValueFromIntOrPercent(v, total, roundUp=true). */
export function scaledValue(v: IntOrString, total: number): number {
  if (typeof v === 'number') return v;
  if (!v.endsWith('%')) throw new SyncError(errors.intOrStringInvalid(errors.notAPercentage));
  const digits = v.slice(0, -1);
  if (!/^[+-]?[0-9]+$/.test(digits)) throw new SyncError(errors.intOrStringInvalid(errors.percentSyntax(v, digits)));
  return Math.ceil((Number(digits) * total) / 100);
}

interface DisruptedPods {
  kept: Record<string, string>;
  events: DisruptionEvent[];
  recheckAt?: number;
}

function buildDisruptedPods(pdb: PodDisruptionBudget, pods: readonly Pod[], now: number): DisruptedPods {
  const stored = pdb.status?.disruptedPods;
  const out: DisruptedPods = { kept: {}, events: [] };
  if (!stored) return out;
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const at = Object.prototype.hasOwnProperty.call(stored, name) ? stored[name] : undefined;
    if (isTerminating(pod) || at === undefined) continue;
    const expiry = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (!(expiry >= now)) {
      const message = texts.notDeleted(pdb.metadata.namespace ?? '');
      out.events.push({ on: { kind: 'Pod', name }, type: 'Warning', reason: texts.notDeletedReason, message });
      continue;
    }
    if (out.recheckAt === undefined || expiry < out.recheckAt) out.recheckAt = expiry;
    out.kept[name] = at;
  }
  return out;
}

function countHealthy(pods: readonly Pod[], disrupted: Readonly<Record<string, string>>, now: number): number {
  let healthy = 0;
  for (const pod of pods) {
    if (isTerminating(pod)) continue;
    const at = disrupted[pod.metadata.name ?? ''];
    if (at !== undefined && Date.parse(at) + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

function updateStatus(
  pdb: PodDisruptionBudget,
  currentHealthy: number,
  counts: ExpectedCounts,
  disruptedPods: Record<string, string>,
  now: number,
): Pick<DisruptionSync, 'status' | 'write'> {
  const { expectedPods, desiredHealthy } = counts;
  const diff = currentHealthy - desiredHealthy;
  const disruptionsAllowed = expectedPods <= 0 || diff <= 0 ? 0 : diff;
  const old = pdb.status;
  const generation = pdb.metadata.generation ?? 0;
  const same =
    old !== undefined &&
    old.currentHealthy === currentHealthy &&
    old.desiredHealthy === desiredHealthy &&
    old.expectedPods === expectedPods &&
    old.disruptionsAllowed === disruptionsAllowed &&
    sameDisrupted(old.disruptedPods, disruptedPods) &&
    (old.observedGeneration ?? 0) === generation &&
    conditionUpToDate(pdb);
  if (same) return { status: old, write: false };
  const status: PodDisruptionBudgetStatus = {
    ...(generation !== 0 ? { observedGeneration: generation } : {}),
    ...(Object.keys(disruptedPods).length > 0 ? { disruptedPods } : {}),
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy,
    expectedPods,
  };
  const allowed = disruptionsAllowed > 0;
  status.conditions = setCondition(old?.conditions ?? [], {
    status: allowed ? 'True' : 'False',
    reason: allowed ? reasons.sufficientPods : reasons.insufficientPods,
    message: '',
    observedGeneration: generation,
    now,
  });
  return { status, write: true };
}

/** apiequality.Semantic.DeepEqual on the maps: a missing map and an empty one are equal. */
function sameDisrupted(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b).length && ka.every((k) => a![k] === b[k]);
}

/** pdbhelper.ConditionsAreUpToDate (the message is not compared). */
function conditionUpToDate(pdb: PodDisruptionBudget): boolean {
  const cond = pdb.status?.conditions?.find((c) => c.type === DISRUPTION_ALLOWED);
  if (!cond || (pdb.status?.observedGeneration ?? 0) !== (pdb.metadata.generation ?? 0)) return false;
  return pdb.status!.disruptionsAllowed > 0
    ? cond.status === 'True' && cond.reason === reasons.sufficientPods
    : cond.status === 'False' && cond.reason === reasons.insufficientPods;
}

interface ConditionUpdate {
  status: 'True' | 'False';
  reason: string;
  message: string;
  observedGeneration: number;
  now: number;
}

/** apimeta.SetStatusCondition for DisruptionAllowed: the transition time moves only when the status does. */
function setCondition(conditions: readonly Condition[], u: ConditionUpdate): Condition[] {
  const gen = u.observedGeneration !== 0 ? { observedGeneration: u.observedGeneration } : {};
  const at = formatTime(new Date(u.now));
  const existing = conditions.find((c) => c.type === DISRUPTION_ALLOWED);
  const next: Condition = {
    type: DISRUPTION_ALLOWED,
    status: u.status,
    ...gen,
    lastTransitionTime: existing && existing.status === u.status ? existing.lastTransitionTime : at,
    reason: u.reason,
    message: u.message,
  };
  if (!existing) return [...conditions, next];
  return conditions.map((c) => (c === existing ? next : c));
}

/** dc.failSafe: the stored counts, disruptionsAllowed 0, DisruptionAllowed False/SyncFailed with the error. */
function failSafe(pdb: PodDisruptionBudget, why: string, now: number): Pick<DisruptionSync, 'status' | 'write'> {
  const old = pdb.status ?? { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  const conditions = setCondition(old.conditions ?? [], {
    status: 'False',
    reason: reasons.syncFailed,
    message: why,
    observedGeneration: old.observedGeneration ?? 0,
    now,
  });
  return { status: { ...old, disruptionsAllowed: 0, conditions }, write: true };
}
