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

/** Every backend's configuration, told apart by `kind` (an etcd backend will join this union). */
export type StoreConfig = SqliteStoreConfig;

export async function openStore(config: StoreConfig): Promise<Store> {
  switch (config.kind) {
    case 'sqlite': {
      const { openSqliteStore } = await import('./sqlite.js');
      return openSqliteStore({ path: config.path, ...(config.historyLimit !== undefined ? { historyLimit: config.historyLimit } : {}) });
    }
    default: {
      const unknown: never = config.kind;
      throw new TypeError(`unknown storage kind ${String(unknown)}`);
    }
  }
}
