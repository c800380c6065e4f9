// The cluster's pki/ directory: one CA, the API server's serving pair, the admin's client pair and the
// pair the API server presents to node agents. Created once, then only ever read, so replicas can share
// a copy and restarts never rotate anything behind an operator's back.
//
// Creation is resumable: files are written CA first, and key before certificate, so a crash leaves a
// state the next call can complete. Concurrent first calls (several replicas started together) are
// serialised by a lock file, because two CAs minted in parallel would leave leaves signed by a CA that
// lost the rename race.

import { mkdir, open, unlink, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { X509Certificate as NodeX509 } from 'node:crypto';
import { writeFileAtomic } from '../util/atomicfile.js';
import {
  assertKeyMatchesCert,
  createCA,
  issueCert,
  parseCertIdentity,
  type CertKeyPem,
  type IssueOptions,
} from './certs.js';
import { PkiError } from './errors.js';
import { errorMessage } from '../util/errors.js';
import { systemClock } from '../util/clock.js';
import { readFileIfPresent } from '../util/optionalfile.js';

export interface ClusterPKIOptions {
  /** Extra DNS names for the API server's serving certificate. */
  hostnames?: string[];
  /** Extra IP addresses for the API server's serving certificate. */
  ips?: string[];
  /** How long to wait for another process creating the same directory; 30 s when omitted. */
  lockTimeoutMs?: number;
}

export interface ClusterPKIPaths {
  caCert: string;
  caKey: string;
  apiserverCert: string;
  apiserverKey: string;
  adminCert: string;
  adminKey: string;
  apiserverKubeletClientCert: string;
  apiserverKubeletClientKey: string;
}

export interface ClusterPKI {
  dir: string;
  paths: ClusterPKIPaths;
  /** `keyPem` is absent when the directory was copied without the CA key (enough to run a replica). */
  ca: { certPem: string; keyPem?: string };
  apiserver: CertKeyPem;
  admin: CertKeyPem;
  apiserverKubeletClient: CertKeyPem;
  /** File names this call wrote; empty when everything already existed. */
  created: string[];
}

export const CA_COMMON_NAME = 'dkc-ca';
export const ADMIN_COMMON_NAME = 'admin';
export const KUBELET_CLIENT_COMMON_NAME = 'kube-apiserver-kubelet-client';
export const MASTERS_GROUP = 'system:masters';

const KEY_MODE = 0o600;
const CERT_MODE = 0o644;
const LOCK_POLL_MS = 50;

type LeafName = 'apiserver' | 'admin' | 'apiserver-kubelet-client';

function leafSpecs(options: ClusterPKIOptions): Record<LeafName, IssueOptions> {
  return {
    apiserver: {
      commonName: 'kube-apiserver',
      dnsNames: ['localhost', hostname(), ...(options.hostnames ?? [])],
      ipAddresses: ['127.0.0.1', '::1', ...(options.ips ?? [])],
      usages: ['server'],
    },
    admin: { commonName: ADMIN_COMMON_NAME, organizations: [MASTERS_GROUP], usages: ['client'] },
    // A dedicated identity with no group: RBAC grants it the kubelet API (system:kubelet-api-admin) and nothing
    // else, so nobody reaches the API server's own data through the node proxy.
    'apiserver-kubelet-client': { commonName: KUBELET_CLIENT_COMMON_NAME, usages: ['client'] },
  };
}

const LEAVES: readonly LeafName[] = ['apiserver', 'admin', 'apiserver-kubelet-client'];

/** What is on disk; undefined where a file is missing. */
interface OnDisk {
  caCert: string | undefined;
  caKey: string | undefined;
  leaves: Record<LeafName, { cert: string | undefined; key: string | undefined }>;
}

async function readState(dir: string): Promise<OnDisk> {
  const leaves = {} as OnDisk['leaves'];
  for (const n of LEAVES) {
    leaves[n] = {
      cert: await readFileIfPresent(join(dir, `${n}.crt`)),
      key: await readFileIfPresent(join(dir, `${n}.key`)),
    };
  }
  return {
    caCert: await readFileIfPresent(join(dir, 'ca.crt')),
    caKey: await readFileIfPresent(join(dir, 'ca.key')),
    leaves,
  };
}

/**
 * Data dirs made by earlier versions hold a node-proxy client certificate in system:masters, which let anyone
 * allowed `nodes/proxy` act as a cluster admin. Such a pair counts as missing, so it is issued anew.
 */
function dropPrivilegedProxyClient(s: OnDisk): void {
  const leaf = s.leaves['apiserver-kubelet-client'];
  if (leaf.cert === undefined) return;
  let orgs: string[];
  try {
    orgs = parseCertIdentity(leaf.cert).organizations;
  } catch {
    return; // assertKeyMatchesCert reports an unreadable certificate
  }
  if (orgs.includes(MASTERS_GROUP)) s.leaves['apiserver-kubelet-client'] = { cert: undefined, key: undefined };
}

function isComplete(s: OnDisk): boolean {
  return s.caCert !== undefined && LEAVES.every((n) => s.leaves[n].cert !== undefined && s.leaves[n].key !== undefined);
}

function assertIssuedBy(caPem: string, leafPem: string, what: string): void {
  let ca: NodeX509;
  let leaf: NodeX509;
  try {
    ca = new NodeX509(caPem);
    leaf = new NodeX509(leafPem);
  } catch (err) {
    throw new PkiError('DKC_PKI_INVALID_PEM', `${what}: cannot parse certificate: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey)) {
    throw new PkiError('DKC_PKI_KEY_MISMATCH', `${what} was not issued by the CA in ca.crt`);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `dir/.lock`, breaking it when its holder has died; returns the release function. */
async function acquireLock(dir: string, timeoutMs: number): Promise<() => Promise<void>> {
  const lockPath = join(dir, '.lock');
  const deadline = systemClock.monotonicMs() + timeoutMs;
  for (;;) {
    try {
      const fh = await open(lockPath, 'wx', 0o600);
      try {
        await fh.writeFile(String(process.pid));
      } finally {
        await fh.close();
      }
      return () => unlink(lockPath).catch(() => undefined);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number.parseInt((await readFileIfPresent(lockPath)) ?? '', 10);
    const st = await stat(lockPath).catch(() => undefined);
    // An empty lock file is one being written right now, unless it has been empty for long: then its
    // writer died between creating and writing it.
    const stale = Number.isInteger(holder)
      ? !isAlive(holder)
      : st !== undefined && systemClock.now().getTime() - st.mtimeMs > 10_000;
    if (stale) {
      // Two processes breaking the same stale lock at the same instant could both proceed. That takes a
      // creator that crashed mid-way plus two simultaneous starters; it is accepted rather than paid for
      // with a lease protocol.
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    if (systemClock.monotonicMs() >= deadline) {
      throw new PkiError(
        'DKC_PKI_LOCKED',
        `${lockPath} is held by process ${Number.isInteger(holder) ? holder : '(unknown)'}`,
      );
    }
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}

function pathsOf(dir: string): ClusterPKIPaths {
  return {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    apiserverCert: join(dir, 'apiserver.crt'),
    apiserverKey: join(dir, 'apiserver.key'),
    adminCert: join(dir, 'admin.crt'),
    adminKey: join(dir, 'admin.key'),
    apiserverKubeletClientCert: join(dir, 'apiserver-kubelet-client.crt'),
    apiserverKubeletClientKey: join(dir, 'apiserver-kubelet-client.key'),
  };
}

/** Completes whatever is missing; must run under the lock. Mutates `s` to the final state. */
async function complete(dir: string, s: OnDisk, options: ClusterPKIOptions, created: string[]): Promise<void> {
  const write = async (name: string, data: string, mode: number): Promise<void> => {
    await writeFileAtomic(join(dir, name), data, mode);
    created.push(name);
  };
  if (s.caCert === undefined) {
    // Leaves without their CA cannot be verified by anyone: refuse rather than mint a CA that did not
    // sign them.
    const orphan = LEAVES.find((n) => s.leaves[n].cert !== undefined);
    if (orphan)
      throw new PkiError(
        'DKC_PKI_INCOMPLETE',
        `${join(dir, `${orphan}.crt`)} exists but ${join(dir, 'ca.crt')} does not`,
      );
    const ca = await createCA(CA_COMMON_NAME);
    await write('ca.key', ca.keyPem, KEY_MODE);
    await write('ca.crt', ca.certPem, CERT_MODE);
    s.caCert = ca.certPem;
    s.caKey = ca.keyPem;
  }
  const specs = leafSpecs(options);
  for (const n of LEAVES) {
    const leaf = s.leaves[n];
    if (leaf.cert !== undefined && leaf.key !== undefined) continue;
    if (leaf.cert !== undefined) {
      throw new PkiError(
        'DKC_PKI_INCOMPLETE',
        `${join(dir, `${n}.crt`)} exists but its key ${join(dir, `${n}.key`)} does not`,
      );
    }
    // A key without its certificate is what a crash between the two writes leaves; it is replaced.
    if (s.caKey === undefined) {
      throw new PkiError('DKC_PKI_CA_KEY_MISSING', `cannot issue ${n}.crt: ${join(dir, 'ca.key')} does not exist`);
    }
    const pair = await issueCert({ certPem: s.caCert, keyPem: s.caKey }, specs[n]);
    await write(`${n}.key`, pair.keyPem, KEY_MODE);
    await write(`${n}.crt`, pair.certPem, CERT_MODE);
    s.leaves[n] = { cert: pair.certPem, key: pair.keyPem };
  }
}

/**
 * Returns the cluster's PKI under `dir`, creating what is missing on first use. Existing files are
 * loaded unchanged (and checked for consistency), whatever `options` say now.
 */
export async function ensureClusterPKI(dir: string, options: ClusterPKIOptions = {}): Promise<ClusterPKI> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let s = await readState(dir);
  dropPrivilegedProxyClient(s);
  const created: string[] = [];
  if (!isComplete(s)) {
    const release = await acquireLock(dir, options.lockTimeoutMs ?? 30_000);
    try {
      s = await readState(dir); // another process may have completed it while we waited
      dropPrivilegedProxyClient(s);
      await complete(dir, s, options, created);
    } finally {
      await release();
    }
  }
  const caCert = s.caCert!;
  if (s.caKey !== undefined) assertKeyMatchesCert(caCert, s.caKey, join(dir, 'ca.crt'));
  const pairs = {} as Record<LeafName, CertKeyPem>;
  for (const n of LEAVES) {
    const { cert, key } = s.leaves[n];
    const what = join(dir, `${n}.crt`);
    assertKeyMatchesCert(cert!, key!, what);
    assertIssuedBy(caCert, cert!, what);
    pairs[n] = { certPem: cert!, keyPem: key! };
  }
  return {
    dir,
    paths: pathsOf(dir),
    ca: s.caKey === undefined ? { certPem: caCert } : { certPem: caCert, keyPem: s.caKey },
    apiserver: pairs.apiserver,
    admin: pairs.admin,
    apiserverKubeletClient: pairs['apiserver-kubelet-client'],
    created,
  };
}
