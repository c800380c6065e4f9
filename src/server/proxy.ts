// The node proxy (`/api/v1/nodes/<name>[:port]/proxy/<path>`): forwards the request to the node's kubelet
// endpoint (its InternalIP and daemonEndpoints.kubeletEndpoint.Port) over HTTPS, authenticating with the server's
// own kubelet-client certificate, and streams status, headers and body back unchanged. That certificate is a
// dedicated identity with only the kubelet API's rights. A node writes its own addresses and port, so neither may
// aim the proxy elsewhere: every address the target resolves to must be proxyable as kube-apiserver's IsProxyableIP
// has it (no unspecified, link-local, multicast or broadcast address), never the API server's own listener, and
// loopback only when the server itself listens on loopback alone (a local cluster: `dkc up`, `dkc fleet`, whose nodes
// are loopback addresses of the same host); and `<name>:<port>` reaches that node's own kubelet port only, so a grant
// on one node's proxy cannot reach another node's agent through it.

import https from 'node:https';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../api/errors.js';
import type { KubeObject } from '../api/types.js';
import { dig } from './builtins.js';
import { errorMessage } from '../util/errors.js';

export interface KubeletClientCredentials {
  certPem: string;
  keyPem: string;
}

/** What the proxy answers, in kube-apiserver's words where it has them. */
export const proxyMessages = {
  /** kube-apiserver's answer for a proxy target it will not reach (proxyutil.ErrAddressNotAllowed). */
  addressNotAllowed: 'address not allowed',
  notKubeletPort: (node: string, port: number) =>
    `port ${port} is not the kubelet port of node ${JSON.stringify(node)}`,
  noAddresses: 'no preferred addresses found; known addresses: []',
  noPort: (node: string) => `no kubelet port known for node ${JSON.stringify(node)}`,
  unreachable: (why: string) => `error trying to reach service: ${why}`,
};

/** A node's kubelet endpoint as the proxy is asked to reach it. */
export interface ProxyTarget {
  node: string;
  host: string;
  /** The port asked for: the kubelet's, or the one `<name>:<port>` names. */
  port: number;
  /** The kubelet port the node advertises (0 when it advertises none). */
  kubeletPort: number;
}

const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'authorization',
  'host',
]);

export function nodeEndpoint(node: KubeObject, portOverride?: string): ProxyTarget {
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
  const advertised = Number(dig(node, 'status.daemonEndpoints.kubeletEndpoint.Port') ?? 0);
  const kubeletPort = Number.isInteger(advertised) && advertised > 0 && advertised <= 65535 ? advertised : 0;
  const port = portOverride ? Number(portOverride) : kubeletPort;
  const name = node.metadata.name ?? '';
  if (!host) throw errors.serviceUnavailable(proxyMessages.noAddresses);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw errors.serviceUnavailable(proxyMessages.noPort(name));
  return { node: name, host, port, kubeletPort };
}

/** An address in one canonical form: IPv4 (also IPv4-mapped IPv6) dotted, IPv6 as eight full groups; else undefined. */
export function canonicalIp(ip: string): string | undefined {
  const bare = ip.replace(/%.*$/, '');
  if (isIP(bare) === 4)
    return bare
      .split('.')
      .map((o) => String(Number(o)))
      .join('.');
  if (isIP(bare) !== 6) return undefined;
  const groups = ipv6Groups(bare.toLowerCase());
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return groups.map((g) => g.toString(16)).join(':');
}

/** The eight 16-bit groups of a valid IPv6 address (net.isIP has checked it), an embedded IPv4 tail included. */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const tail: number[] = [];
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, v4.index);
    // "…:1.2.3.4" leaves a separator to drop; "::1.2.3.4" leaves the "::" that stands for the zero groups.
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const [head = '', rest] = text.split('::');
  if (rest === undefined) return [...parse(head), ...tail];
  const left = parse(head);
  const right = [...parse(rest), ...tail];
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function isLoopback(canonical: string): boolean {
  return canonical === '0:0:0:0:0:0:0:1' || canonical.startsWith('127.');
}

/**
 * kube-apiserver's IsProxyableIP, which is Go's net.IP.IsGlobalUnicast: not unspecified, loopback, link-local unicast,
 * multicast or the IPv4 broadcast address. The whole of 0.0.0.0/8 counts as unspecified (no host has such an address,
 * and Linux connects 0.0.0.0 to the local host).
 */
export function isGlobalUnicast(ip: string): boolean {
  const a = canonicalIp(ip);
  if (a === undefined) return false;
  if (a.includes('.')) {
    const [o1, o2] = a.split('.').map(Number) as [number, number];
    return !(
      o1 === 0 ||
      o1 === 127 ||
      (o1 === 169 && o2 === 254) ||
      (o1 >= 224 && o1 <= 239) ||
      a === '255.255.255.255'
    );
  }
  const first = parseInt(a.split(':')[0]!, 16);
  const unspecified = a === '0:0:0:0:0:0:0:0';
  return !(unspecified || isLoopback(a) || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00);
}

/**
 * Whether connecting to `ip:port` would reach the API server listening on `listen` (its bound address and port).
 * A wildcard bind answers on every address of the host, `localAddresses` (all interface addresses).
 */
export function isOwnAddress(
  ip: string,
  port: number,
  listen: { address: string; port: number },
  localAddresses: readonly string[],
): boolean {
  if (port !== listen.port) return false;
  const a = canonicalIp(ip);
  const bound = canonicalIp(listen.address);
  if (a === undefined || bound === undefined) return false;
  // Connecting to an unspecified address reaches the local host.
  if (bound === '0.0.0.0' || bound === '0:0:0:0:0:0:0:0') {
    return isLoopback(a) || !isGlobalUnicast(a) || localAddresses.some((l) => canonicalIp(l) === a);
  }
  return a === bound || (isLoopback(a) && isLoopback(bound)) || a === '0.0.0.0' || a === '0:0:0:0:0:0:0:0';
}

/**
 * Whether the proxy may connect to `ip:port`: a global unicast address (IsProxyableIP) that is not the API server's
 * own listener, or a loopback address while the server listens on loopback only. A server on loopback is reachable
 * from its own host alone, so its nodes are local processes (dkc up's agents, dkc fleet's loopback addresses); a server
 * on any other address refuses loopback targets as kube-apiserver does.
 */
export function isProxyable(
  ip: string,
  port: number,
  listen: { address: string; port: number } | undefined,
  localAddresses: readonly string[],
): boolean {
  const a = canonicalIp(ip);
  if (a === undefined) return false;
  if (listen && isOwnAddress(a, port, listen, localAddresses)) return false;
  if (isLoopback(a)) {
    const bound = listen && canonicalIp(listen.address);
    return bound !== undefined && isLoopback(bound);
  }
  return isGlobalUnicast(a);
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
    this.agent = new https.Agent({
      cert: creds.certPem,
      key: creds.keyPem,
      rejectUnauthorized: false,
      keepAlive: true,
      maxSockets: 64,
    });
  }

  /** Tells the proxy the API server's own listening address, which it then refuses as a target. */
  setListening(listen: { address: string; port: number }): void {
    this.listening = listen;
  }

  /**
   * Resolves the target once and checks every address it resolves to (a later lookup could answer differently) with
   * kube-apiserver's 400 "address not allowed", then that the port is the node's own kubelet port.
   */
  async resolveTarget(target: ProxyTarget): Promise<{ host: string; port: number }> {
    let ips: string[];
    try {
      ips = isIP(target.host.replace(/%.*$/, ''))
        ? [target.host]
        : (await lookup(target.host, { all: true })).map((r) => r.address);
    } catch (err) {
      throw errors.serviceUnavailable(proxyMessages.unreachable(errorMessage(err)));
    }
    const locals = localAddresses();
    if (ips.length === 0 || ips.some((ip) => !isProxyable(ip, target.port, this.listening, locals))) {
      throw errors.badRequest(proxyMessages.addressNotAllowed);
    }
    if (target.port !== target.kubeletPort)
      throw errors.badRequest(proxyMessages.notKubeletPort(target.node, target.port));
    return { host: ips[0]!, port: target.port };
  }

  async forward(
    req: IncomingMessage,
    res: ServerResponse,
    to: ProxyTarget,
    path: string,
    search: string,
  ): Promise<void> {
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
          const st = errors.serviceUnavailable(proxyMessages.unreachable(err.message)).status;
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
  async get(to: ProxyTarget, path: string, timeoutMs: number): Promise<string> {
    const target = await this.resolveTarget(to);
    return new Promise((resolve, reject) => {
      const req = https.request(
        { host: target.host, port: target.port, method: 'GET', path, agent: this.agent, timeout: timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 200) resolve(body);
            else reject(new Error(`GET ${path} answered ${res.statusCode ?? 0}`));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
