// A Pod as `kubectl get pods` shows it: kube's printPod (pkg/printers/internalversion) — READY as ready/total
// containers (restartable init containers, sidecars, counted in), STATUS from the phase or status.reason, an init
// container's progress or failure, a container's waiting or terminated reason, "Terminating" once deleted;
// RESTARTS with the time of the last one; and the wide columns IP, NODE, NOMINATED NODE, READINESS GATES. Pure.

import { age } from '../../api/humanize.js';
import { ageCol, col, created, nameCol } from '../columns.js';
import type { TableColumn } from '../resourcedef.js';
import type { KubeObject } from '../../api/types.js';
import type { Container, ContainerStatus, PodObject } from './types.js';

export const podColumns: TableColumn[] = [
  nameCol,
  col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
  col('Status', 'The aggregate status of the containers in this pod.'),
  col(
    'Restarts',
    'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
  ),
  ageCol,
  col('IP', 'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', {
    priority: 1,
  }),
  col('Node', 'NodeName indicates in which node this pod is scheduled.', { priority: 1 }),
  col('Nominated Node', 'nominatedNodeName is set only when this pod preempts other pods on the node.', {
    priority: 1,
  }),
  col('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', { priority: 1 }),
];

interface Tally {
  reason: string;
  ready: number;
  restarts: number;
  /** The latest finishedAt of a container's last termination ('' when none). */
  lastRestart: string;
}

const restartable = (c: Container | undefined) => c?.['restartPolicy'] === 'Always';

function noteRestart(t: Tally, s: ContainerStatus): void {
  t.restarts += s.restartCount ?? 0;
  const finished = (s.lastState?.terminated as { finishedAt?: string } | null | undefined)?.finishedAt;
  if (finished && finished > t.lastRestart) t.lastRestart = finished;
}

/** The init containers' part: whether the pod is still initializing (and the reason says how far). */
function initContainers(pod: PodObject, t: Tally): boolean {
  const specs = new Map((pod.spec?.initContainers ?? []).map((c) => [c.name, c]));
  const statuses = pod.status?.initContainerStatuses ?? [];
  for (let i = 0; i < statuses.length; i++) {
    const s = statuses[i]!;
    noteRestart(t, s);
    const term = s.state?.terminated;
    const waiting = s.state?.waiting;
    if (term && (term.exitCode ?? 0) === 0) continue;
    if (restartable(specs.get(s.name)) && s['started'] === true) {
      if (s.ready) t.ready++;
      continue;
    }
    if (term) {
      const code = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
      t.reason = `Init:${term.reason || code}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') t.reason = `Init:${waiting.reason}`;
    else t.reason = `Init:${i}/${specs.size}`;
    return true;
  }
  return false;
}

/** The app containers' part, last to first as kube reads them. */
function appContainers(pod: PodObject, t: Tally): void {
  let running = false;
  const statuses = pod.status?.containerStatuses ?? [];
  for (let i = statuses.length - 1; i >= 0; i--) {
    const s = statuses[i]!;
    noteRestart(t, s);
    const term = s.state?.terminated;
    if (s.state?.waiting?.reason) t.reason = s.state.waiting.reason;
    else if (term?.reason) t.reason = term.reason;
    else if (term) t.reason = term.signal ? `Signal:${term.signal}` : `ExitCode:${term.exitCode ?? 0}`;
    else if (s.ready && s.state?.running) {
      running = true;
      t.ready++;
    }
  }
  if (t.reason === 'Completed' && running) {
    const ready = (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
    t.reason = ready ? 'Running' : 'NotReady';
  }
}

function readinessGates(pod: PodObject): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conditions = pod.status?.conditions ?? [];
  const met = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

/** printPod's cells: NAME, READY, STATUS, RESTARTS, AGE, IP, NODE, NOMINATED NODE, READINESS GATES. */
export function podRow(obj: KubeObject, now: number): unknown[] {
  const pod = obj as PodObject;
  const status = pod.status ?? {};
  const phase = status.phase ?? '';
  const t: Tally = { reason: status.reason || phase, ready: 0, restarts: 0, lastRestart: '' };
  if ((status.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated'))
    t.reason = 'SchedulingGated';
  const sidecars = (pod.spec?.initContainers ?? []).filter(restartable).length;
  const total = (pod.spec?.containers ?? []).length + sidecars;
  const initializing = initContainers(pod, t);
  const initialized = (status.conditions ?? []).some((c) => c.type === 'Initialized' && c.status === 'True');
  if (!initializing || initialized) {
    const sidecarStatuses = (status.initContainerStatuses ?? []).filter((s) =>
      restartable((pod.spec?.initContainers ?? []).find((c) => c.name === s.name)),
    );
    t.restarts = 0;
    t.lastRestart = '';
    for (const s of sidecarStatuses) noteRestart(t, s);
    appContainers(pod, t);
  }
  const deleting = !!pod.metadata.deletionTimestamp;
  if (deleting && status.reason === 'NodeLost') t.reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') t.reason = 'Terminating';
  const restarts =
    t.restarts !== 0 && t.lastRestart ? `${t.restarts} (${age(t.lastRestart, now)} ago)` : `${t.restarts}`;
  const ips = status['podIPs'] as { ip?: string }[] | undefined;
  return [
    pod.metadata.name,
    `${t.ready}/${total}`,
    t.reason,
    restarts,
    created(pod, now),
    ips?.[0]?.ip || '<none>',
    pod.spec?.nodeName || '<none>',
    status.nominatedNodeName || '<none>',
    readinessGates(pod),
  ];
}
