import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiError,
  ClientError,
  isApiError,
  RestClient,
  type ClientConfig,
  type RateLimiter,
} from '../../src/client/index.js';
import { json, makeTestPKI, ScriptedServer, status, type TestPKI } from './harness.js';
import { waitFor } from '../helpers/wait.js';

let pki: TestPKI;
let server: ScriptedServer;
let config: ClientConfig;
let client: RestClient;

before(async () => {
  pki = await makeTestPKI();
  server = new ScriptedServer(pki);
  const url = await server.start();
  config = { server: url, ca: pki.ca.certPem, cert: pki.client.certPem, key: pki.client.keyPem };
  client = new RestClient(config);
});
after(async () => {
  client.close();
  await server.close();
});

/** Echoes the request back, so each test can check what went over the wire. */
function echo(): void {
  server.handler = (req, res) =>
    json(res, req.method === 'POST' ? 201 : 200, {
      method: req.method,
      path: req.url.pathname,
      query: Object.fromEntries(req.url.searchParams),
      contentType: req.headers['content-type'] ?? '',
      accept: req.headers['accept'] ?? '',
      body: req.body,
      user: req.clientCN,
    });
}

interface Echo {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string;
  accept: string;
  body: string;
  user: string;
}

describe('RestClient requests', () => {
  it('GETs JSON over mutual TLS with the kubeconfig client certificate', async () => {
    echo();
    const r = await client.get<Echo>('/api/v1/namespaces/ns/configmaps/a');
    assert.equal(r.method, 'GET');
    assert.equal(r.path, '/api/v1/namespaces/ns/configmaps/a');
    assert.equal(r.accept, 'application/json');
    assert.equal(r.user, 'tester');
  });

  it('sends JSON bodies and the right content types for create, update and the three patch kinds', async () => {
    echo();
    const obj = { metadata: { name: 'a' }, data: { k: 'ü' } };
    const created = await client.create<Echo>('/api/v1/namespaces/ns/configmaps', obj);
    assert.equal(created.method, 'POST');
    assert.equal(created.contentType, 'application/json');
    assert.deepEqual(JSON.parse(created.body), obj);
    assert.equal((await client.update<Echo>('/x', obj)).method, 'PUT');
    const types = {
      merge: 'application/merge-patch+json',
      strategic: 'application/strategic-merge-patch+json',
      json: 'application/json-patch+json',
    } as const;
    for (const [type, ct] of Object.entries(types)) {
      const r = await client.patch<Echo>('/x', type as keyof typeof types, [{ op: 'add', path: '/a', value: 1 }]);
      assert.equal(r.method, 'PATCH');
      assert.equal(r.contentType, ct);
    }
    const del = await client.delete<Echo>('/x', { body: { kind: 'DeleteOptions', propagationPolicy: 'Background' } });
    assert.equal(del.method, 'DELETE');
    assert.deepEqual(JSON.parse(del.body), { kind: 'DeleteOptions', propagationPolicy: 'Background' });
  });

  it('encodes list options and arbitrary query parameters', async () => {
    echo();
    const r = await client.list<Echo>('/api/v1/nodes', {
      labelSelector: 'a=b,c',
      fieldSelector: 'metadata.name=n1',
      limit: 5,
      query: { pretty: true },
    });
    assert.deepEqual(r.query, {
      pretty: 'true',
      labelSelector: 'a=b,c',
      fieldSelector: 'metadata.name=n1',
      limit: '5',
    });
  });

  it('returns status, headers and the decoded body from request(), text when not JSON', async () => {
    server.handler = (req, res) => {
      if (req.url.pathname === '/healthz') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      } else {
        res.writeHead(204);
        res.end();
      }
    };
    const r = await client.request({ method: 'GET', path: '/healthz' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain');
    assert.equal(r.body, 'ok');
    const empty = await client.request({ method: 'DELETE', path: '/gone' });
    assert.equal(empty.status, 204);
    assert.equal(empty.body, undefined);
  });

  it('keeps the server URL path prefix', async () => {
    echo();
    const prefixed = new RestClient({ ...config, server: `${config.server}/k8s/` });
    try {
      assert.equal((await prefixed.get<Echo>('/api/v1/nodes')).path, '/k8s/api/v1/nodes');
    } finally {
      prefixed.close();
    }
  });

  it('reuses one connection for consecutive requests (keep-alive)', async () => {
    const ports = new Set<number>();
    server.handler = (_req, res) => {
      ports.add(res.socket!.remotePort!);
      json(res, 200, {});
    };
    for (let i = 0; i < 5; i++) await client.get('/api');
    assert.equal(ports.size, 1);
  });

  it('passes every request through the rate limiter', async () => {
    echo();
    let acquired = 0;
    const limiter: RateLimiter = {
      acquire: async () => {
        acquired++;
      },
    };
    const limited = new RestClient(config, { rateLimiter: limiter });
    try {
      await limited.get('/a');
      await limited.create('/b', {});
      assert.equal(acquired, 2);
    } finally {
      limited.close();
    }
  });

  it('sends a bearer token when the kubeconfig has one', async () => {
    server.handler = (req, res) => json(res, 200, { auth: req.headers.authorization });
    const tokenClient = new RestClient({ server: config.server, ca: pki.ca.certPem, token: 't0k' });
    try {
      assert.deepEqual(await tokenClient.get('/'), { auth: 'Bearer t0k' });
    } finally {
      tokenClient.close();
    }
  });

  it('talks plain HTTP to http:// servers', async () => {
    const plain = http.createServer((_req, res) => json(res, 200, { plain: true }));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const c = new RestClient({ server: `http://127.0.0.1:${(plain.address() as AddressInfo).port}` });
    try {
      assert.deepEqual(await c.get('/'), { plain: true });
    } finally {
      c.close();
      plain.closeAllConnections();
      await new Promise<void>((r) => plain.close(() => r()));
    }
  });
});

describe('RestClient errors', () => {
  it('maps a 404 Status to ApiError code 404, reason NotFound, with the server message', async () => {
    server.handler = (_req, res) => json(res, 404, status(404, 'NotFound', 'configmaps "missing" not found'));
    const err = await client.get('/api/v1/namespaces/ns/configmaps/missing').then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApiError);
    assert.ok(isApiError(err, 404));
    assert.equal(err.code, 404);
    assert.equal(err.reason, 'NotFound');
    assert.equal(err.message, 'configmaps "missing" not found');
    assert.equal(err.status.kind, 'Status');
    assert.equal(err.status.status, 'Failure');
  });

  it('keeps Status details (causes) for 422 Invalid and 409 Conflict', async () => {
    const invalid = {
      ...status(422, 'Invalid', 'ConfigMap "a" is invalid: data: Required value'),
      details: {
        name: 'a',
        kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'data' }],
      },
    };
    server.handler = (_req, res) => json(res, 422, invalid);
    await assert.rejects(client.create('/x', {}), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.reason, 'Invalid');
      assert.equal(e.status.details?.causes?.[0]?.field, 'data');
      return true;
    });
    server.handler = (_req, res) => json(res, 409, status(409, 'Conflict', 'the object has been modified'));
    await assert.rejects(client.update('/x', {}), { name: 'ApiError', code: 409, reason: 'Conflict' });
  });

  it('words a generic Status for error responses that carry none', async () => {
    server.handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '3' });
      res.end('overloaded');
    };
    await assert.rejects(client.get('/x'), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 503);
      assert.equal(e.reason, 'ServiceUnavailable');
      assert.equal(e.message, 'the server is currently unable to handle the request');
      assert.equal(e.status.details?.retryAfterSeconds, 3);
      return true;
    });
    server.handler = (_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom');
    };
    await assert.rejects(client.get('/x'), {
      code: 500,
      reason: 'InternalError',
      message: 'an error on the server ("boom") has prevented the request from succeeding',
    });
  });

  it('fails with RESPONSE_DECODE on a 2xx body that is not the JSON it claims', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{not json');
    };
    await assert.rejects(
      client.get('/x'),
      (e: unknown) => e instanceof ClientError && e.code === 'DKC_CLIENT_RESPONSE_DECODE',
    );
  });

  it('fails with CONNECTION when the server is not trusted or not there', async () => {
    const untrusting = new RestClient({ ...config, ca: pki.foreignCa.certPem });
    try {
      await assert.rejects(
        untrusting.get('/x'),
        (e: unknown) => e instanceof ClientError && e.code === 'DKC_CLIENT_CONNECTION',
      );
    } finally {
      untrusting.close();
    }
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const nowhere = new RestClient({ server: `https://127.0.0.1:${port}` });
    try {
      await assert.rejects(nowhere.get('/x'), { name: 'ClientError', code: 'DKC_CLIENT_CONNECTION' });
    } finally {
      nowhere.close();
    }
  });

  it('is refused by the server with a client certificate from another CA', async () => {
    echo();
    const foreign = new RestClient({ ...config, cert: pki.foreignClient.certPem, key: pki.foreignClient.keyPem });
    try {
      await assert.rejects(foreign.get('/x'), { name: 'ApiError', code: 401, reason: 'Unauthorized' });
    } finally {
      foreign.close();
    }
  });

  it('fails with ABORTED when the caller aborts, and TIMEOUT after the client timeout', async () => {
    server.handler = () => {
      // never answers; the server's close() in `after` cuts it
    };
    const ac = new AbortController();
    const pending = client.get('/slow', { signal: ac.signal });
    await server.waitForRequest((r) => r.url.pathname === '/slow');
    ac.abort();
    await assert.rejects(pending, { name: 'ClientError', code: 'DKC_CLIENT_ABORTED' });
    await assert.rejects(client.get('/x', { signal: AbortSignal.abort() }), { code: 'DKC_CLIENT_ABORTED' });
    const impatient = new RestClient(config, { timeoutMs: 50 });
    try {
      await assert.rejects(impatient.get('/slow2'), { name: 'ClientError', code: 'DKC_CLIENT_TIMEOUT' });
    } finally {
      impatient.close();
    }
  });

  it('rejects a path without a leading slash and a server that is not http(s)', () => {
    assert.throws(() => client.url('api/v1'), { code: 'DKC_CLIENT_INVALID_ARGUMENT' });
    assert.throws(() => new RestClient({ server: 'ftp://x' }), { code: 'DKC_CLIENT_INVALID_ARGUMENT' });
  });
});

describe('RestClient over a shared pool of connections', () => {
  it('sends each client its own token, reuses the connections, and closes only its own requests', async () => {
    const { connectionPool } = await import('../../src/client/index.js');
    const pool = connectionPool({ server: config.server, ca: pki.ca.certPem });
    const a = new RestClient({ server: config.server, ca: pki.ca.certPem, token: 'token-a' }, { pool });
    const b = new RestClient({ server: config.server, ca: pki.ca.certPem, token: 'token-b' }, { pool });
    const sockets = new Set<unknown>();
    server.handler = (req, res) => {
      if (req.url.pathname === '/hang') return; // held open, as a watch is
      json(res, 200, { auth: req.headers.authorization });
    };
    try {
      assert.deepEqual(await a.get('/x'), { auth: 'Bearer token-a' });
      assert.deepEqual(await b.get('/x'), { auth: 'Bearer token-b' });
      for (const list of Object.values(pool.agent.freeSockets)) for (const s of list ?? []) sockets.add(s);
      assert.equal(sockets.size, 1, 'b reused the connection a opened');
      const hangingA = a.get('/hang', { query: { who: 'a' } }).then(
        () => 'answered',
        (err: unknown) => err,
      );
      const hangingB = b.get('/hang', { query: { who: 'b' } }).then(
        () => 'answered',
        (err: unknown) => err,
      );
      await server.waitForRequest((r) => r.url.searchParams.get('who') === 'b');
      a.withOptions({ timeoutMs: 5_000 }).close(); // a client derived from a is a: closing it ends a's requests
      assert.ok((await hangingA) instanceof ClientError);
      assert.deepEqual(await b.get('/x'), { auth: 'Bearer token-b' }, 'b and the pool are untouched');
      const race = await Promise.race([hangingB, new Promise((r) => setTimeout(() => r('still open'), 100))]);
      assert.equal(race, 'still open');
      b.close();
      assert.ok((await hangingB) instanceof ClientError);
    } finally {
      pool.agent.destroy();
    }
  });

  it('a shared pool bounds the connections requests use, queueing the rest, while each watch gets its own', async () => {
    const { sharedConnectionPool } = await import('../../src/client/index.js');
    const pool = sharedConnectionPool({ server: config.server, ca: pki.ca.certPem }, 2);
    const c = new RestClient({ server: config.server, ca: pki.ca.certPem, token: 't' }, { pool });
    const held: (() => void)[] = [];
    let atOnce = 0;
    let most = 0;
    server.handler = (req, res) => {
      if (req.url.searchParams.get('watch') === 'true') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED","object":{"metadata":{"name":"w"}}}\n');
        return;
      }
      atOnce++;
      most = Math.max(most, atOnce);
      held.push(() => {
        atOnce--;
        json(res, 200, {});
      });
    };
    try {
      const calls = Array.from({ length: 5 }, (_, i) => c.get('/held', { query: { i: String(i) } }));
      let answered = 0;
      for (const call of calls)
        void call.then(
          () => answered++,
          () => undefined,
        );
      await waitFor('two requests held', () => held.length === 2, { timeoutMs: 5_000, stepMs: 10 });
      const stream = await c.watch('/api/v1/pods'); // not queued behind the held requests
      stream.close();
      // Release what is held until every request is answered: the queued ones arrive as the first ones finish.
      await waitFor(
        () => `the five requests answered (${answered} were)`,
        () => {
          held.splice(0).forEach((release) => release());
          return answered === calls.length;
        },
        { timeoutMs: 30_000, stepMs: 20 },
      );
      await Promise.all(calls);
      assert.equal(most, 2);
    } finally {
      c.close();
      pool.agent.destroy();
      pool.watchAgent?.destroy();
    }
  });

  it('refuses a client certificate over a shared pool: it would authenticate the connection, not the client', async () => {
    const { connectionPool } = await import('../../src/client/index.js');
    const pool = connectionPool({ server: config.server, ca: pki.ca.certPem });
    try {
      assert.throws(
        () => new RestClient(config, { pool }),
        (err: unknown) => err instanceof ClientError && err.code === 'DKC_CLIENT_INVALID_ARGUMENT',
      );
      const { sharedConnectionPool } = await import('../../src/client/index.js');
      assert.throws(
        () => sharedConnectionPool(config, 4),
        (err: unknown) => err instanceof ClientError && err.code === 'DKC_CLIENT_INVALID_ARGUMENT',
      );
    } finally {
      pool.agent.destroy();
    }
  });
});
