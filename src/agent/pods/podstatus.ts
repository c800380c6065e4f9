// The status a kubelet reports for a Pod it runs or stops (kube's status manager and generate.go): phase,
// the five conditions in the order the kubelet lists them, IPs, start time and one status per container. Pure: the
// Pod as the API has it, what the runtime runs, and the time come in; a condition keeps its lastTransitionTime while
// its status stays the same. Conditions the kubelet does not own (DisruptionTarget set by an eviction, a readiness
// gate's) are kept as the API has them, ahead of the kubelet's own, as generateAPIPodStatus keeps them.

import type { Container, ContainerStatus, Pod, PodCondition, PodStatus } from '../../api/workloads.js';
import type { RunningPod } from './types.js';

/** The conditions the kubelet owns (kubetypes.PodConditionsByKubelet), in the order it lists them. */
const CONDITION_ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

/** The Pod's conditions that others own, unchanged: the kubelet's status write must not drop them. */
function othersConditions(old: PodStatus | undefined): PodCondition[] {
  return (old?.conditions ?? []).filter((c) => !CONDITION_ORDER.includes(c.type));
}

/** The image reference a runtime reports: docker.io/library/ for a bare name, :latest for no tag. */
export function imageRef(image: string): string {
  let ref = image;
  const lastPart = ref.slice(ref.lastIndexOf('/') + 1);
  if (!lastPart.includes(':') && !lastPart.includes('@')) ref = `${ref}:latest`;
  const first = ref.split('/')[0]!;
  const hasRegistry = ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) return ref;
  return ref.includes('/') ? `docker.io/${ref}` : `docker.io/library/${ref}`;
}

/** kube's QoS class: BestEffort without any request or limit, Guaranteed when every limit is its request. */
export function qosClass(containers: readonly Container[]): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const limits = c.resources?.limits ?? {};
    const requests = { ...limits, ...(c.resources?.requests ?? {}) };
    if (Object.keys(requests).length > 0 || Object.keys(limits).length > 0) any = true;
    for (const r of ['cpu', 'memory']) if (limits[r] === undefined || requests[r] !== limits[r]) guaranteed = false;
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function withTimes(
  next: Omit<PodCondition, 'lastTransitionTime' | 'lastProbeTime'>[],
  old: PodStatus | undefined,
  now: string,
) {
  return next.map((c): PodCondition => {
    const before = old?.conditions?.find((o) => o.type === c.type);
    const since = before && before.status === c.status ? (before.lastTransitionTime ?? now) : now;
    return { ...c, lastProbeTime: null, lastTransitionTime: since };
  });
}

function conditions(ready: boolean, terminal: 'Succeeded' | undefined, unready: string[]) {
  const notReady = terminal
    ? { status: 'False' as const, reason: 'PodCompleted' }
    : ready
      ? { status: 'True' as const }
      : {
          status: 'False' as const,
          reason: 'ContainersNotReady',
          message: `containers with unready status: [${unready.join(' ')}]`,
        };
  const all: Omit<PodCondition, 'lastTransitionTime' | 'lastProbeTime'>[] = [
    { type: 'PodReadyToStartContainers', status: terminal ? 'False' : 'True' },
    { type: 'Initialized', status: 'True', ...(terminal ? { reason: 'PodCompleted' } : {}) },
    { type: 'Ready', ...notReady },
    { type: 'ContainersReady', ...notReady },
    { type: 'PodScheduled', status: 'True' },
  ];
  return all.sort((a, b) => CONDITION_ORDER.indexOf(a.type) - CONDITION_ORDER.indexOf(b.type));
}

function containerStatus(pod: RunningPod, c: RunningPod['containers'][number]): ContainerStatus {
  const containerID = `containerd://${pod.uid.replaceAll('-', '')}${c.name}`;
  const image = imageRef(c.image);
  const state: ContainerStatus['state'] = pod.stoppedAt
    ? {
        terminated: {
          exitCode: 0,
          reason: 'Completed',
          startedAt: c.startedAt,
          finishedAt: pod.stoppedAt,
          containerID,
        },
      }
    : { running: { startedAt: c.startedAt } };
  const running = pod.stoppedAt === undefined;
  return { name: c.name, image, imageID: image, containerID, ready: running, started: running, restartCount: 0, state };
}

/** The status of a Pod the runtime runs (or has stopped, for a graceful delete: phase Succeeded). */
export function runtimeStatus(pod: Pod, running: RunningPod, hostIP: string, now: string): PodStatus {
  const terminal = running.stoppedAt ? 'Succeeded' : undefined;
  const containers = running.containers.map((c) => containerStatus(running, c));
  return {
    phase: terminal ?? 'Running',
    conditions: [...othersConditions(pod.status), ...withTimes(conditions(!terminal, terminal, []), pod.status, now)],
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP: running.ip,
    podIPs: [{ ip: running.ip }],
    startTime: running.startedAt,
    containerStatuses: containers.sort((a, b) => (a.name < b.name ? -1 : 1)),
    qosClass: qosClass(pod.spec?.containers ?? []),
  };
}
