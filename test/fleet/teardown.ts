// What a fleet test started, stopped in reverse order, and the process's logging given back to stderr (the fleet
// took it over). Safe to call with whatever a failed `before` managed to start.

import { rm } from 'node:fs/promises';
import type { RestClient } from '../../src/client/index.js';
import type { Fleet } from '../../src/fleet/index.js';
import type { Cluster } from '../../src/up/cluster.js';
import { configureLogging } from '../../src/util/klog.js';

export async function stopFleetCluster(s: {
  fleet: Fleet | undefined;
  admin: RestClient | undefined;
  cluster: Cluster | undefined;
  work: string;
}): Promise<void> {
  await s.fleet?.stop();
  s.admin?.close();
  await s.cluster?.stop(5_000);
  configureLogging({ sink: (line) => void process.stderr.write(line) });
  if (s.work) await rm(s.work, { recursive: true, force: true });
}
