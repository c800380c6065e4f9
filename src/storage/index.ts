// The storage package's entry point: the Store contract and a factory that opens the backend a
// configuration names. Backends are imported on demand, so a process that never opens SQLite (the node
// agent, the CLI) never loads its native module.

import type { Store } from './store.js';

export * from './store.js';

export interface SqliteStoreConfig {
  kind: 'sqlite';
  /** The database file. */
  path: string;
  /** Revisions of history kept for watches and reads at older revisions (see sqlite.ts for the default). */
  historyLimit?: number;
}

export interface EtcdStoreConfig {
  kind: 'etcd';
  /** Client URLs of the etcd members. */
  endpoints: string[];
  /** Prepended to every key (default none). */
  prefix?: string;
  tls?: { caPem: Buffer; certPem?: Buffer; keyPem?: Buffer };
  /** Periodic compaction interval in ms (0 = off; see etcd.ts for the default). */
  compactionIntervalMs?: number;
}

/** Every backend's configuration, told apart by `kind`. */
export type StoreConfig = SqliteStoreConfig | EtcdStoreConfig;

export async function openStore(config: StoreConfig): Promise<Store> {
  switch (config.kind) {
    case 'sqlite': {
      const { openSqliteStore } = await import('./sqlite.js');
      return openSqliteStore({
        path: config.path,
        ...(config.historyLimit !== undefined ? { historyLimit: config.historyLimit } : {}),
      });
    }
    case 'etcd': {
      const { openEtcdStore } = await import('./etcd.js');
      const { kind: _kind, ...options } = config;
      return openEtcdStore(options);
    }
    default: {
      const unknown: never = config;
      throw new TypeError(`unknown storage kind ${String((unknown as { kind?: unknown }).kind)}`);
    }
  }
}
