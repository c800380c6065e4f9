// The node proxy (`/api/v1/nodes/<name>[:port]/proxy/<path>`): forwards the request to the node's kubelet
// endpoint (its InternalIP and daemonEndpoints.kubeletEndpoint.Port) over HTTPS, authenticating with the server's
// own kubelet-client certificate, and streams status, headers and body back unchanged. That certificate is a
// dedicated identity with only the kubelet API's rights, and the proxy never points at the API server's own
// listening address: neither the proxy nor a node's reported address can turn a nodes/proxy grant into API access.

import https from 'node:https';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
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

/** kube-apiserver's answer for a proxy target it will not reach. */
export const ADDRESS_NOT_ALLOWED = 'address not allowed';

function normalizeIp(ip: string): string {
  return ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();
}

function isLoopback(ip: string): boolean {
  const a = normalizeIp(ip);
  return a === '::1' || /^127\./.test(a);
}

/**
 * Whether connecting to `ip:port` would reach the API server listening on `listen` (its bound address and port).
 * A wildcard bind answers on every address of the host, `localAddresses` (all interface addresses).
 */
export function isOwnAddress(ip: string, port: number, listen: { address: string; port: number }, localAddresses: readonly string[]): boolean {
  if (port !== listen.port) return false;
  const a = normalizeIp(ip);
  const bound = normalizeIp(listen.address);
  if (bound === '0.0.0.0' || bound === '::') return isLoopback(a) || localAddresses.some((l) => normalizeIp(l) === a);
  return a === bound || (isLoopback(a) && isLoopback(bound));
}

function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

export class NodeProxy {
  private readonly agent: https.Agent;
  /** Where the API server itself listens, once it does. */
  private listening?: { address: string; port: number };

  constructor(creds: KubeletClientCredentials) {
    // Kubelet serving certificates are self-signed per node unless configured, and kube-apiserver does not verify
    // them without --kubelet-certificate-authority; the same holds here.
    this.agent = new https.Agent({ cert: creds.certPem, key: creds.keyPem, rejectUnauthorized: false, keepAlive: true, maxSockets: 64 });
  }

  /** Tells the proxy the API server's own listening address, which it then refuses as a target. */
  setListening(listen: { address: string; port: number }): void {
    this.listening = listen;
  }

  /**
   * Resolves the target once and checks that address (a later lookup could answer differently), refusing the API
   * server's own listener with kube-apiserver's 400 "address not allowed".
   */
  async resolveTarget(target: { host: string; port: number }): Promise<{ host: string; port: number }> {
    let ips: string[];
    try {
      ips = isIP(target.host) ? [target.host] : (await lookup(target.host, { all: true })).map((r) => r.address);
    } catch (err) {
      throw errors.serviceUnavailable(`error trying to reach service: ${(err as Error).message}`);
    }
    const listen = this.listening;
    if (listen) {
      const locals = localAddresses();
      if (ips.some((ip) => isOwnAddress(ip, target.port, listen, locals))) throw errors.badRequest(ADDRESS_NOT_ALLOWED);
    }
    return { host: ips[0]!, port: target.port };
  }

  async forward(req: IncomingMessage, res: ServerResponse, to: { host: string; port: number }, path: string, search: string): Promise<void> {
    const target = await this.resolveTarget(to);
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

  /** A GET of the server's own on the node's agent (admission reading /configz): the body of a 200, else a rejection. */
  async get(to: { host: string; port: number }, path: string, timeoutMs: number): Promise<string> {
    const target = await this.resolveTarget(to);
    return new Promise((resolve, reject) => {
      const req = https.request({ host: target.host, port: target.port, method: 'GET', path, agent: this.agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) resolve(body);
          else reject(new Error(`GET ${path} answered ${res.statusCode ?? 0}`));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
