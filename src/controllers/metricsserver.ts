// `dkc controller --metrics-bind-address`: the standalone controllers' /metrics on plain HTTP, as controller-runtime
// managers serve theirs (and kube-controller-manager's metrics port did before it went secure). Off by default; put
// it on loopback or behind the network policy that guards the node, since it carries no authentication.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderMetrics, type Registry } from '../util/prom.js';
import { ControllerError, messages } from './errors.js';
import { errorMessage } from '../util/errors.js';

/** host:port, or "0" (and "") for no listener. */
export function parseBindAddress(flag: string): { host: string; port: number } | undefined {
  if (flag === '0' || flag === '') return undefined;
  const m = /^(\[[^\]]+\]|[^:]*):(\d+)$/.exec(flag);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535)
    throw new ControllerError('DKC_CONTROLLER_INVALID_BIND_ADDRESS', messages.invalidBindAddress(flag));
  const host = m[1]!.replace(/^\[|\]$/g, '');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

export interface MetricsServer {
  address: AddressInfo;
  close(): Promise<void>;
}

export async function serveMetrics(registry: Registry, bind: { host: string; port: number }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return;
    }
    renderMetrics(registry).then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      },
      (err: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`${errorMessage(err)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(bind.port, bind.host, () => resolve());
  });
  return {
    address: server.address() as AddressInfo,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
