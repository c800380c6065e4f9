// One HTTPS server for every simulated node's kubelet endpoints. Each node has a loopback address of its own; the
// fleet binds a small TCP listener on each (same port) and hands every accepted socket to the one HTTPS server, which
// routes a request by the address the connection arrived on (socket.localAddress) to that node's handler: the very
// handler a real agent serves (createAgentHandler), with the node's own authentication and authorization rules.
// While a node is between two instances its address refuses connections, as a restarting kubelet's port does.

import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import { createAgentHandler, type AgentServers, type AgentServersOptions } from '../agent/node/index.js';
import { FleetError, messages } from './errors.js';

export interface SharedListenerOptions {
  /** The port every node's address listens on; 0 picks one with the first bind, which the others then share. */
  port: number;
  servingCert: { certPem: string; keyPem: string; certFile: string; keyFile: string };
  /** The client CA asked for in the handshake (the cluster CA); each node then checks its own clientCAFile. */
  clientCA: string;
}

export class SharedListener {
  private readonly server: https.Server;
  private readonly routes = new Map<string, http.RequestListener>();
  private readonly listeners = new Map<string, net.Server>();
  private readonly sockets = new Set<net.Socket>();
  private port: number;

  constructor(private readonly options: SharedListenerOptions) {
    this.port = options.port;
    this.server = https.createServer(
      {
        cert: options.servingCert.certPem,
        key: options.servingCert.keyPem,
        requestCert: true,
        rejectUnauthorized: false,
        ca: options.clientCA,
      },
      (req, res) => {
        const route = this.routes.get(req.socket.localAddress ?? '');
        if (route) return route(req, res);
        // The node stopped after this connection was accepted (a keep-alive connection outliving an instance).
        res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
        res.end('node is restarting\n');
      },
    );
  }

  /** The shared port (known once the first address is bound). */
  get boundPort(): number {
    return this.port;
  }

  /** Listens on `address` (once; later calls for the same address do nothing). */
  async bind(address: string): Promise<void> {
    if (this.listeners.has(address)) return;
    const tcp = net.createServer((socket) => {
      if (!this.routes.has(address)) {
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      // A connection becomes TLS once its client speaks (TLSSocket takes over what is buffered): the agent's health
      // probe connects and closes every few seconds, and thousands of nodes' probes each costing a TLS socket on this
      // side were the largest part of a steady fleet's CPU.
      const dropped = (): void => void socket.destroy();
      socket.on('error', dropped);
      socket.once('readable', () => {
        socket.off('error', dropped);
        if (socket.readableLength === 0) socket.destroy();
        else this.server.emit('connection', socket);
      });
    });
    this.listeners.set(address, tcp);
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', (err) => {
        this.listeners.delete(address);
        reject(
          new FleetError('DKC_FLEET_LISTEN_FAILED', messages.listenFailed(address, this.port, err.message), {
            cause: err,
          }),
        );
      });
      tcp.listen(this.port, address, () => {
        if (this.port === 0) this.port = (tcp.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  /** Serves one instance of the node at `address`: the AgentHost's `serve` for a fleet. */
  async serve(address: string, options: AgentServersOptions): Promise<AgentServers> {
    const { handler } = await createAgentHandler({ ...options, handshakeCA: this.options.clientCA });
    await this.bind(address);
    this.routes.set(address, handler);
    const { certFile, keyFile } = this.options.servingCert;
    return {
      ports: { https: this.port },
      address,
      certFile,
      keyFile,
      certGenerated: false,
      // The agent's health probe, without a connection: thousands of nodes connecting to themselves every few seconds
      // cost the fleet a socket pair each time, for what this process knows already.
      probe: async () => {
        if (this.routes.get(address) !== handler || !this.listeners.get(address)?.listening)
          throw new FleetError('DKC_FLEET_LISTEN_FAILED', messages.notListening(address, this.port));
      },
      stop: async () => {
        if (this.routes.get(address) !== handler) return;
        this.routes.delete(address);
        // Connections of this instance end with it, as they do when a kubelet exits.
        for (const s of this.sockets) if (s.localAddress === address) s.destroy();
      },
    };
  }

  /** Stops listening on every address and ends every connection. */
  async close(): Promise<void> {
    this.routes.clear();
    for (const s of this.sockets) s.destroy();
    await Promise.all(
      [...this.listeners.values()].map((l) => new Promise<void>((resolve) => l.close(() => resolve()))),
    );
    this.listeners.clear();
  }
}
