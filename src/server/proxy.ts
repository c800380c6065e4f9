// The node proxy (`/api/v1/nodes/<name>[:port]/proxy/<path>`): forwards the request to the node's kubelet
// endpoint (its InternalIP and daemonEndpoints.kubeletEndpoint.Port) over HTTPS, authenticating with the server's
// own kubelet-client certificate, and streams status, headers and body back unchanged.

import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { dig } from './registry.js';

export interface KubeletClientCredentials {
  certPem: string;
  keyPem: string;
}

const hopByHop = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'authorization', 'host']);

export function nodeEndpoint(node: KubeObject, portOverride?: string): { host: string; port: number } {
  const addresses = (dig(node, 'status.addresses') as { type?: string; address?: string }[] | undefined) ?? [];
  const order = ['InternalIP', 'ExternalIP', 'Hostname', 'InternalDNS', 'ExternalDNS'];
  let host = '';
  if (Array.isArray(addresses)) {
    for (const t of order) {
      const a = addresses.find((x) => x && x.type === t && x.address);
      if (a) {
        host = a.address!;
        break;
      }
    }
  }
  const port = portOverride ? Number(portOverride) : Number(dig(node, 'status.daemonEndpoints.kubeletEndpoint.Port') ?? 0);
  if (!host) throw errors.serviceUnavailable(`no preferred addresses found; known addresses: []`);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw errors.serviceUnavailable(`no kubelet port known for node ${JSON.stringify(node.metadata.name)}`);
  }
  return { host, port };
}

export class NodeProxy {
  private readonly agent: https.Agent;
  constructor(creds: KubeletClientCredentials) {
    // Kubelet serving certificates are self-signed per node unless configured, and kube-apiserver does not verify
    // them without --kubelet-certificate-authority; the same holds here.
    this.agent = new https.Agent({ cert: creds.certPem, key: creds.keyPem, rejectUnauthorized: false, keepAlive: true, maxSockets: 64 });
  }

  forward(req: IncomingMessage, res: ServerResponse, target: { host: string; port: number }, path: string, search: string): Promise<void> {
    return new Promise((resolve) => {
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !hopByHop.has(k)) headers[k] = v;
      const remote = req.socket.remoteAddress ?? '';
      headers['x-forwarded-for'] = remote.replace(/^::ffff:/, '');
      const upstream = https.request(
        {
          host: target.host,
          port: target.port,
          method: req.method,
          path: path + search,
          headers,
          agent: this.agent,
          timeout: 30_000,
        },
        (up) => {
          const out: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !hopByHop.has(k)) out[k] = v;
          res.writeHead(up.statusCode ?? 502, out);
          up.pipe(res);
          up.on('end', resolve);
          up.on('error', () => {
            res.destroy();
            resolve();
          });
        },
      );
      upstream.on('timeout', () => upstream.destroy(new Error('timeout')));
      upstream.on('error', (err) => {
        if (!res.headersSent) {
          const st = errors.serviceUnavailable(`error trying to reach service: ${err.message}`).status;
          res.writeHead(st.code, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(st));
        } else {
          res.destroy();
        }
        resolve();
      });
      req.pipe(upstream);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
