// A Pod's binding to a node (kube's BindingREST and LegacyBindingREST, workloads.md §1.3): POST
// pods/{name}/binding, or the legacy POST bindings naming the Pod in metadata.name. The Binding is checked, admitted
// as a CREATE of pods/binding, then the Pod is updated in storage without its strategy: spec.nodeName set, the
// Binding's annotations merged, PodScheduled True. A plain refusal of the update is a 409 on pods/binding; a Status
// (the Pod missing, a precondition failed) is answered as it is.

import { StatusError, errors } from '../../api/errors.js';
import { aggregate, field, type FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import type { ActionRequest, SubresourceAction } from '../resourcedef.js';
import { podText } from './messages.js';
import { withCondition } from './conditions.js';
import type { PodObject } from './types.js';

export interface BindingObject extends KubeObject {
  target?: { kind?: string; name?: string; apiVersion?: string };
}

const BINDING_RESOURCE = { group: '', name: 'pods/binding' };
const PODS = { group: '', name: 'pods' };

/** ValidatePodBinding. */
export function validateBinding(binding: BindingObject): FieldError[] {
  const errs: FieldError[] = [];
  const target = binding.target ?? {};
  if (target.kind && target.kind !== 'Node')
    errs.push(field.notSupported('target.kind', target.kind, ['Node', '<empty>']));
  if (!target.name) errs.push(field.required('target.name'));
  return errs;
}

/** The binding's UID and resourceVersion as preconditions on the Pod: a 409 on pods, passed through as it is. */
function checkPreconditions(pod: PodObject, binding: BindingObject, name: string): void {
  const { uid, resourceVersion } = binding.metadata ?? {};
  let failed: string | undefined;
  if (uid && uid !== pod.metadata.uid) failed = podText.preconditionUid(uid, pod.metadata.uid ?? '');
  else if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion)
    failed = podText.preconditionRv(resourceVersion, pod.metadata.resourceVersion ?? '');
  if (failed !== undefined) throw errors.conflict(PODS, name, failed);
}

/** setPodHostAndAnnotations: the Pod bound to the binding's node, or why not (a plain error, wrapped by the caller). */
export function bindPod(pod: PodObject, binding: BindingObject, now: string): PodObject {
  const name = pod.metadata.name ?? '';
  checkPreconditions(pod, binding, name);
  const spec = pod.spec ?? {};
  if (pod.metadata.deletionTimestamp) throw new Error(podText.bindingDeleting(name));
  if (spec.nodeName) throw new Error(podText.bindingAssigned(name, spec.nodeName));
  if (spec.schedulingGates?.length) throw new Error(podText.bindingGated(name));
  const annotations = { ...(pod.metadata.annotations ?? {}), ...(binding.metadata?.annotations ?? {}) };
  const status = pod.status ?? {};
  const conditions = withCondition(status.conditions ?? [], { type: 'PodScheduled', status: 'True' }, now);
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations },
    spec: { ...spec, nodeName: binding.target?.name ?? '' },
    status: { ...status, conditions },
  };
}

async function bind(request: ActionRequest): Promise<void> {
  const binding = request.body as BindingObject;
  const name = request.name || binding.metadata?.name || '';
  if (request.name && binding.metadata?.name !== request.name) throw errors.badRequest(podText.bindingNameMismatch);
  const ns = binding.metadata?.namespace;
  if (ns && ns !== request.namespace)
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  const errs = validateBinding(binding);
  if (errs.length) throw errors.unknown(aggregate(errs.map(String)));
  await request.admit(name);
  const pods = request.storageOf('', 'v1', 'pods')!;
  await pods.transform(request.namespace, name, request.ctx, (pod) => {
    try {
      return bindPod(pod, binding, request.now);
    } catch (err) {
      if (err instanceof StatusError) throw err;
      throw errors.conflict(BINDING_RESOURCE, name, (err as Error).message);
    }
  });
}

/** pods/binding. */
export const podBinding: SubresourceAction = { kind: 'Binding', run: bind };
