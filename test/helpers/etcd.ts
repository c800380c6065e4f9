// Real etcd for the tests: a single member or a 3-member cluster on free loopback ports in a temp dir, waited
// on until healthy, and torn down (processes by PID, then the directory) by stop(), also when a test fails.

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd-member.js';

export type { EtcdCluster, EtcdMember } from '../../src/storage/etcd-member.js';

export async function startEtcd(
  options: { members?: number } = {},
): Promise<EtcdCluster & { dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-etcd-'));
  const cluster = await startEtcdCluster({ dir, members: options.members ?? 1 });
  return Object.assign(cluster, { dir, cleanup: () => cluster.stop({ removeData: true }) });
}
