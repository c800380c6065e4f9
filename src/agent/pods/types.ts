// What the node's Pod runner keeps of the Pods it runs (the simulated runtime's record), written to the node's root
// directory so that it outlives the agent, as containers outlive a kubelet. The Pod itself is api/workloads.ts's.

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
