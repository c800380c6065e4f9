// The Eviction API (kube's EvictionREST, workloads.md §2): POST pods/{name}/eviction with a policy/v1 or v1beta1
// Eviction. The request is admitted as a CREATE of pods/eviction; then, retried while another write changes a budget
// first, the Pod and its namespace's budgets are read and decideEviction says what follows: a refusal, or the
// budget's status written at its resourceVersion (disruptedPods[pod] = now, one disruption fewer) and the delete;
// the delete marks the Pod DisruptionTarget True, then deletes it gracefully with the eviction's deleteOptions.

import { StatusError, errors } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { deleteOptionsOf, preconditionFailure, type DeleteOptions } from '../deletion.js';
import type { ActionRequest, SubresourceAction } from '../resourcedef.js';
import type { ResourceStorage, WriteContext } from '../resources.js';
import { buildSelection } from '../selection.js';
import { withCondition } from './conditions.js';
import { decideEviction, stillProcessing, type Budget, type BudgetStatus } from './eviction.js';
import { evictionText } from './messages.js';
import type { PodObject } from './types.js';

interface EvictionObject extends KubeObject {
  deleteOptions?: Record<string, unknown> | null;
}

/** Attempts at the budget's status before the last conflict is answered. */
const BUDGET_ATTEMPTS = 5;
const POD_KIND = { group: '', name: 'Pod' };
/** The budget's status is the server's own write, as kube-apiserver's loopback client makes it. */
const SERVER_USER = { name: 'system:apiserver', groups: ['system:masters'] };

function podsOf(request: ActionRequest): ResourceStorage {
  return request.storageOf('', 'v1', 'pods')!;
}

async function budgetsOf(request: ActionRequest): Promise<Budget[]> {
  const pdbs = request.storageOf('policy', 'v1', 'poddisruptionbudgets');
  if (!pdbs) return [];
  const selection = buildSelection(pdbs.def, undefined, undefined, request.namespace);
  return (await pdbs.list(request.namespace, { selection })).items;
}

/** The budget's new status at the resourceVersion it was read at; the Conflict when another write came first. */
async function writeBudget(
  request: ActionRequest,
  budget: Budget,
  status: BudgetStatus,
): Promise<StatusError | undefined> {
  const pdbs = request.storageOf('policy', 'v1', 'poddisruptionbudgets')!;
  const ctx: WriteContext = { user: SERVER_USER, dryRun: request.ctx.dryRun };
  try {
    await pdbs.update(request.namespace, budget.metadata.name ?? '', { ...budget, status }, 'status', ctx);
    return undefined;
  } catch (err) {
    if (err instanceof StatusError && err.code === 409) return err;
    throw err;
  }
}

const withPrecondition = (options: DeleteOptions, resourceVersion: string): DeleteOptions => ({
  ...options,
  preconditions: { ...options.preconditions, resourceVersion },
});

/** addConditionAndDeletePod: DisruptionTarget True on the Pod as it is now (the preconditions hold), then the delete. */
async function markAndDelete(request: ActionRequest, options: DeleteOptions): Promise<void> {
  const pods = podsOf(request);
  let opts = options;
  if (!request.ctx.dryRun) {
    const target = {
      type: 'DisruptionTarget',
      status: 'True',
      reason: evictionText.targetReason,
      message: evictionText.targetMessage,
    };
    const marked = await pods.transform(request.namespace, request.name, request.ctx, (pod: PodObject) => {
      const failed = preconditionFailure(opts, pod.metadata);
      if (failed !== undefined) throw errors.conflict(POD_KIND, request.name, failed);
      const status = pod.status ?? {};
      return { ...pod, status: { ...status, conditions: withCondition(status.conditions ?? [], target, request.now) } };
    });
    // The update was the handler's own: a resourceVersion precondition moves on with it.
    const rv = marked.metadata.resourceVersion;
    if (opts.preconditions?.resourceVersion && rv) opts = withPrecondition(opts, rv);
  }
  await pods.delete(request.namespace, request.name, opts, request.ctx);
}

/** The delete; a conflict on the precondition the handler set itself (not the caller) is a 429 to retry. */
async function deletePod(request: ActionRequest, options: DeleteOptions, pinned: string | undefined, budget = '') {
  const own = pinned !== undefined && !options.preconditions?.resourceVersion;
  try {
    await markAndDelete(request, own ? withPrecondition(options, pinned) : options);
  } catch (err) {
    if (own && err instanceof StatusError && err.code === 409) throw stillProcessing(budget);
    throw err;
  }
}

async function evict(request: ActionRequest): Promise<void> {
  const body = request.body as EvictionObject;
  if (body.metadata?.name !== request.name) throw errors.badRequest(evictionText.nameMismatch);
  const options = body.deleteOptions ? deleteOptionsOf(body.deleteOptions, new URLSearchParams()) : {};
  if (options.dryRun) request.ctx.dryRun = true;
  await request.admit(request.name);
  let conflict: StatusError | undefined;
  for (let attempt = 0; attempt < BUDGET_ATTEMPTS; attempt++) {
    const pod = (await podsOf(request).get(request.namespace, request.name)) as PodObject;
    const decision = decideEviction(pod, await budgetsOf(request), { now: request.now, dryRun: request.ctx.dryRun });
    if (decision.action === 'refuse') throw decision.error;
    if (decision.action === 'delete') return deletePod(request, options, decision.precondition);
    conflict = await writeBudget(request, decision.budget, decision.status);
    if (!conflict) return deletePod(request, options, undefined, decision.budget.metadata.name);
    // A caller that pinned the Pod's resourceVersion is not retried for (kube's shouldRetry).
    if (options.preconditions?.resourceVersion) break;
  }
  throw conflict!;
}

/** pods/eviction: advertised as policy/v1 Eviction; v1beta1 bodies have the same shape. */
export const podEviction: SubresourceAction = { kind: 'Eviction', group: 'policy', version: 'v1', run: evict };
