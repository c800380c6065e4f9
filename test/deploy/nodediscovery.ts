// An HTTP service discovery endpoint that answers what Prometheus' Kubernetes discovery with role: node finds: one
// target per Node at its InternalIP and kubelet port, with the __meta_kubernetes_node_* labels and the instance label
// set to the node's name. It lists Nodes from dkc server with the credentials it is given, so the user Prometheus
// runs as needs the same rights (list nodes) as with the real discovery.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Node } from '../../src/api/types.js';
import type { RestClient } from '../../src/client/index.js';

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');

export function nodeTargetGroup(node: Node): { targets: string[]; labels: Record<string, string> } {
  const name = node.metadata?.name ?? '';
  const addresses = node.status?.addresses ?? [];
  const ip = addresses.find((a) => a.type === 'InternalIP')?.address ?? addresses[0]?.address ?? '';
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 10250;
  const labels: Record<string, string> = { __meta_kubernetes_node_name: name, instance: name };
  for (const [k, v] of Object.entries(node.metadata?.labels ?? {})) {
    labels[`__meta_kubernetes_node_label_${sanitize(k)}`] = v;
    labels[`__meta_kubernetes_node_labelpresent_${sanitize(k)}`] = 'true';
  }
  for (const a of addresses) labels[`__meta_kubernetes_node_address_${a.type}`] ??= a.address;
  return { targets: [`${ip}:${port}`], labels };
}

export async function startNodeDiscovery(client: RestClient): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    client.list<{ items: Node[] }>('/api/v1/nodes').then(
      (list) => {
        const body = JSON.stringify(list.items.map(nodeTargetGroup));
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(body);
      },
      (err: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(String((err as Error).message));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/nodes`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
