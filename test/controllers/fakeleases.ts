// An in-memory Lease API for leader election tests: get/create/update with resourceVersion conflicts as the API
// server enforces them, and a switch that makes every call fail as an unreachable server would.

import type { Lease } from '../../src/api/types.js';
import { ApiError, ClientError, type CallOptions } from '../../src/client/index.js';
import type { LeaseClient } from '../../src/controllers/leaderelection.js';

function apiError(code: number, reason: string, message: string): ApiError {
  return new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message });
}

export class FakeLeases implements LeaseClient {
  private readonly items = new Map<string, Lease>();
  private rv = 0;
  /** While true every call fails with a connection error. */
  down = false;
  writes = 0;

  private key(path: string): string {
    return path.replace(/\/leases$/, '');
  }

  private check(options?: CallOptions): void {
    if (options?.signal?.aborted) throw new ClientError('DKC_CLIENT_ABORTED', 'aborted');
    if (this.down) throw new ClientError('DKC_CLIENT_CONNECTION', 'connect ECONNREFUSED 127.0.0.1:6443');
  }

  /** The stored Lease by name (any namespace path ends in /leases/<name>). */
  lease(name: string): Lease | undefined {
    for (const [k, v] of this.items) if (k.endsWith(`/leases/${name}`)) return structuredClone(v);
    return undefined;
  }

  /** Writes a Lease directly, as another candidate would. */
  put(path: string, lease: Lease): Lease {
    const stored = structuredClone(lease);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.rv) };
    this.items.set(path, stored);
    return structuredClone(stored);
  }

  get = async <T>(path: string, options?: CallOptions): Promise<T> => {
    await Promise.resolve();
    this.check(options);
    const found = this.items.get(path);
    if (found === undefined)
      throw apiError(404, 'NotFound', `leases.coordination.k8s.io "${path.split('/').pop()}" not found`);
    return structuredClone(found) as T;
  };

  create = async <T>(path: string, body: unknown, options?: CallOptions): Promise<T> => {
    await Promise.resolve();
    this.check(options);
    const lease = body as Lease;
    const full = `${this.key(path)}/leases/${lease.metadata.name}`;
    if (this.items.has(full))
      throw apiError(409, 'AlreadyExists', `leases.coordination.k8s.io "${lease.metadata.name}" already exists`);
    this.writes++;
    return this.put(full, lease) as T;
  };

  update = async <T>(path: string, body: unknown, options?: CallOptions): Promise<T> => {
    await Promise.resolve();
    this.check(options);
    const lease = body as Lease;
    const current = this.items.get(path);
    if (current === undefined) throw apiError(404, 'NotFound', 'not found');
    if (lease.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw apiError(
        409,
        'Conflict',
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    this.writes++;
    return this.put(path, lease) as T;
  };
}
