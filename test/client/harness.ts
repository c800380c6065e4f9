// A scriptable HTTPS server for the client tests: real TLS with client-certificate authentication on
// 127.0.0.1, every request recorded, each answer written by the test. Also fake timers that fire only
// when the test says so, so backoff can be checked without sleeping.

import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCA, issueCert, type CertKeyPem } from '../../src/pki/index.js';
import type { Clock, TimerHandle } from '../../src/util/clock.js';

export interface TestPKI {
  ca: CertKeyPem;
  serving: CertKeyPem;
  client: CertKeyPem;
  /** A client pair from an unrelated CA, which the server must refuse. */
  foreignClient: CertKeyPem;
  foreignCa: CertKeyPem;
}

export async function makeTestPKI(): Promise<TestPKI> {
  const ca = await createCA('test-ca');
  const foreignCa = await createCA('other-ca');
  return {
    ca,
    foreignCa,
    serving: await issueCert(ca, {
      commonName: 'test-server',
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
      usages: ['server'],
    }),
    client: await issueCert(ca, { commonName: 'tester', organizations: ['testers'], usages: ['client'] }),
    foreignClient: await issueCert(foreignCa, { commonName: 'intruder', usages: ['client'] }),
  };
}

export interface Recorded {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
  /** CN of the client certificate, '' without one. */
  clientCN: string;
}

export type Handler = (req: Recorded, res: ServerResponse) => void | Promise<void>;

export class ScriptedServer {
  readonly requests: Recorded[] = [];
  handler: Handler = (_req, res) => {
    res.statusCode = 500;
    res.end('no handler');
  };
  private readonly server: https.Server;
  private readonly open = new Set<ServerResponse>();
  private waiters: { pred: (r: Recorded) => boolean; resolve: (r: Recorded) => void }[] = [];

  constructor(pki: TestPKI) {
    this.server = https.createServer(
      {
        cert: pki.serving.certPem,
        key: pki.serving.keyPem,
        ca: pki.ca.certPem,
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => void this.dispatch(req, res),
    );
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate();
    const authorized = (req.socket as import('node:tls').TLSSocket).authorized;
    const rec: Recorded = {
      method: req.method ?? '',
      url: new URL(req.url ?? '/', 'https://127.0.0.1'),
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      clientCN: authorized && peer && typeof peer.subject?.CN === 'string' ? peer.subject.CN : '',
    };
    this.requests.push(rec);
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred(rec)) return true;
      w.resolve(rec);
      return false;
    });
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (!authorized && !req.headers.authorization) {
      json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
      return;
    }
    try {
      await this.handler(rec, res);
    } catch (err) {
      if (!res.headersSent) json(res, 500, status(500, 'InternalError', String(err)));
      else res.destroy();
    }
  }

  /** Resolves with the `nth` recorded request matching `pred` (1-based), now or when it arrives. */
  waitForRequest(pred: (r: Recorded) => boolean, nth = 1): Promise<Recorded> {
    const matching = this.requests.filter(pred);
    if (matching.length >= nth) return Promise.resolve(matching[nth - 1]!);
    let remaining = nth - matching.length;
    return new Promise((resolve) =>
      this.waiters.push({
        pred: (r) => pred(r) && --remaining === 0,
        resolve,
      }),
    );
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const r of this.open) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function json(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function status(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** Starts a chunked watch response; returns a writer of events and an ender. */
export function startWatch(res: ServerResponse): {
  send: (type: string, object: unknown) => Promise<void>;
  end: () => void;
} {
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  res.flushHeaders();
  return {
    send: (type, object) =>
      new Promise<void>((resolve) => {
        res.write(JSON.stringify({ type, object }) + '\n', () => resolve());
      }),
    end: () => res.end(),
  };
}

export function cm(name: string, rv: string, data: Record<string, string> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv }, data };
}

interface FakeTimer {
  id: number;
  fn: () => void;
  ms: number;
  cleared: boolean;
}

/** Timers under the test's control: nothing fires until `fire` is called. */
export class FakeTimers implements Clock {
  private t = 0;
  private seq = 0;
  readonly scheduled: FakeTimer[] = [];
  private waiters: { pred: (t: FakeTimer) => boolean; resolve: (t: FakeTimer) => void }[] = [];

  now(): Date {
    return new Date(this.t);
  }
  monotonicMs(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: FakeTimer = { id: ++this.seq, fn, ms, cleared: false };
    this.scheduled.push(timer);
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred(timer)) return true;
      w.resolve(timer);
      return false;
    });
    return timer.id;
  }
  clearTimeout(handle: TimerHandle): void {
    const t = this.scheduled.find((x) => x.id === handle);
    if (t) t.cleared = true;
  }
  /** Pending (scheduled, not fired, not cleared) timers matching `pred`. */
  pending(pred: (t: FakeTimer) => boolean = () => true): FakeTimer[] {
    return this.scheduled.filter((t) => !t.cleared && pred(t));
  }
  /** Resolves with the first pending timer matching `pred`, now or when one is scheduled. */
  next(pred: (t: FakeTimer) => boolean): Promise<FakeTimer> {
    const now = this.pending(pred)[0];
    if (now) return Promise.resolve(now);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
  fire(t: FakeTimer): void {
    if (t.cleared) return;
    t.cleared = true;
    this.advance(t.ms);
    t.fn();
  }
}
