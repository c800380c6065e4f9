// What the node's Pod runner logs, in one place.

import type { RunningPod } from './types.js';

type Named = { namespace: string; name: string };
const ref = (p: Named) => `${p.namespace}/${p.name}`;

export const podLogs = {
  started: (p: Named, ip: string) => `pod ${ref(p)} started (IP ${ip})`,
  rejected: (p: Named, reason: string, message: string) => `pod ${ref(p)} rejected at admission: ${reason}: ${message}`,
  stopped: (p: Named) => `pod ${ref(p)} is being deleted: its containers stopped`,
  removed: (p: Named) => `Pod fully terminated and removed from etcd pod="${ref(p)}"`,
  forgotten: (p: RunningPod) => `pod ${ref(p)} (uid ${p.uid}) is gone from the API: what ran for it is ended`,
  noAddress: (range: string) => `no free Pod IP left in ${range}0/24`,
  syncFailed: (uid: string, why: string) => `syncing pod uid ${uid} failed (retried on its next change): ${why}`,
  watchFailed: (why: string) => `watching the node's pods: ${why}`,
};
