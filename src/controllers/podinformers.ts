// What the controllers that follow Pods on their nodes share (the scheduler, the taint eviction controller): the
// informers on Nodes and Pods, from the host's factory or one of their own, how a Pod is named and addressed, and the
// events they record about one.

import type { Node } from '../api/types.js';
import type { Pod } from '../api/workloads.js';
import type { KubeObject } from '../client/index.js';
import { SharedInformerFactory, type InformerLike } from '../client/sharedinformers.js';
import { createEventDirectly, type EventType } from '../client/events.js';
import { errorMessage } from '../util/errors.js';
import { klog } from '../util/klog.js';
import type { ControllerContext } from './types.js';

export type NodeObject = Node & KubeObject;
export type PodObject = Pod & KubeObject;
export type PodControllerOptions = Pick<ControllerContext, 'client' | 'clock' | 'signal' | 'informers'>;

export const podKey = (p: Pod): string => `${p.metadata.namespace ?? ''}/${p.metadata.name ?? ''}`;
export const podPath = (p: Pod): string =>
  `/api/v1/namespaces/${p.metadata.namespace ?? ''}/pods/${p.metadata.name ?? ''}`;

/**
 * The Node and Pod informers; `own` is the factory made because the host shared none (the controller stops it). A
 * list or watch that fails — a client without the rights to read Pods among them — is logged as an error under the
 * controller's name, as client-go's reflector logs it, each time the informer tries again.
 */
export function nodeAndPodInformers(
  o: PodControllerOptions,
  controller: string,
): {
  nodes: InformerLike<NodeObject>;
  pods: InformerLike<PodObject>;
  own: SharedInformerFactory | undefined;
} {
  const own = o.informers ? undefined : new SharedInformerFactory(o.client, { clock: o.clock });
  const informers = o.informers ?? own!;
  const nodes = informers.informer<NodeObject>('/api/v1/nodes');
  const pods = informers.informer<PodObject>('/api/v1/pods');
  for (const i of [nodes, pods])
    i.on('error', (err) => klog.error(`${controller}: failed to list or watch ${i.path}: ${errorMessage(err)}`));
  return { nodes, pods, own };
}

export interface PodEvent {
  type: EventType;
  reason: string;
  message: string;
  /** source.component: the controller's name as kube records it. */
  component: string;
}

/** Records `e` about `pod` without waiting; a failure is logged at V(2), as kube's recorder does. */
export function recordPodEvent(o: Pick<ControllerContext, 'client' | 'clock'>, pod: Pod, e: PodEvent): void {
  const { namespace, name, uid } = pod.metadata;
  void createEventDirectly(o.client, {
    involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: namespace ?? '', name: name ?? '', uid: uid ?? '' },
    ...e,
    host: '',
    now: o.clock.now(),
  }).catch((err: unknown) => klog.v(2, `failed to send event, error: ${errorMessage(err)}`));
}
