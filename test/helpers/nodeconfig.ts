// Test fixtures for node configs: a NodeConfigSource naming a kube-system ConfigMap, such a ConfigMap holding a
// node's local config plus a few lines, and waiting until nodes serve /configz through the API server's proxy.

import type { ConfigMap, NodeConfigSource } from '../../src/api/types.js';
import type { RestClient } from '../../src/client/index.js';
import { waitFor } from './wait.js';

export const kubeletSource = (name: string): NodeConfigSource => ({
  configMap: { namespace: 'kube-system', name, kubeletConfigKey: 'kubelet' },
});

/**
 * Creates kube-system/`name` with key `kubelet`: `localConfig` with `extra` lines appended. Immutable, so that a
 * rollout of it assigns it as it is (a rollout pins a mutable ConfigMap as an immutable copy of its own) and a test
 * finds its nodes on the name it gave.
 */
export function kubeletConfigMap(
  client: RestClient,
  localConfig: string,
  name: string,
  extra: string,
): Promise<ConfigMap> {
  return client.create<ConfigMap>('/api/v1/namespaces/kube-system/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'kube-system' },
    data: { kubelet: `${localConfig.trimEnd()}\n${extra}\n` },
    immutable: true,
  });
}

/** Resolves once every node in `names` answers /configz through the API server's node proxy. */
export async function waitForConfigz(client: RestClient, names: readonly string[], timeoutMs = 30_000): Promise<void> {
  await waitFor(
    `${names.join(', ')} to serve /configz`,
    async () => {
      for (const n of names) await client.get(`/api/v1/nodes/${n}/proxy/configz`);
      return true;
    },
    timeoutMs,
  );
}
