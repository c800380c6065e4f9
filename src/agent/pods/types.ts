// What the node's Pod runner reads of a Pod and keeps of the Pods it runs. A Pod is read in kube's JSON shape, only
// the fields a kubelet looks at to run it and report it; what the runner keeps (the simulated runtime's record) is
// its own, written to the node's root directory so that it outlives the agent, as containers outlive a kubelet.

export interface PodContainer {
  name: string;
  image?: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
  lastProbeTime?: string | null;
}

export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: {
    running?: { startedAt: string };
    terminated?: { exitCode: number; reason: string; startedAt: string; finishedAt: string; containerID?: string };
    waiting?: { reason: string; message?: string };
  };
}

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  containerStatuses?: ContainerStatus[];
  qosClass?: string;
}

export interface RunnablePod {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    deletionTimestamp?: string;
    [k: string]: unknown;
  };
  spec?: {
    nodeName?: string;
    containers?: PodContainer[];
    initContainers?: PodContainer[];
    terminationGracePeriodSeconds?: number;
    [k: string]: unknown;
  };
  status?: PodStatus;
  [k: string]: unknown;
}

/** A Pod as the simulated runtime runs it: what a container runtime would report after the kubelet restarts. */
export interface RunningPod {
  uid: string;
  namespace: string;
  name: string;
  ip: string;
  /** When the runtime started the Pod's sandbox (RFC 3339): the Pod's status.startTime. */
  startedAt: string;
  containers: { name: string; image: string; startedAt: string }[];
  /** Set once the runtime has stopped the containers (a graceful delete): when they ended. */
  stoppedAt?: string;
}

/** What the runtime keeps on disk: every Pod it runs, by uid. */
export interface RuntimeState {
  pods: Record<string, RunningPod>;
}
