// Forwards the page's /api and /apis requests to the API server with the user's kubeconfig credentials, as
// `kubectl proxy` does: the client certificate and bearer token stay in this process, never reach the page, and any
// credentials the browser sends are dropped. Responses are streamed, so watches pass through as they arrive.

import * as http from 'node:http';
import { connectionPool, type ClientConfig } from '../client/index.js';
import { messages } from './errors.js';

/** Request headers not forwarded: hop-by-hop ones, and the browser's own credentials and host. */
const DROPPED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'authorization',
  'cookie',
]);

export interface ApiProxy {
  forward(req: http.IncomingMessage, res: http.ServerResponse): void;
  close(): void;
}

export function apiProxy(config: ClientConfig): ApiProxy {
  const base = new URL(config.server);
  const { transport, agent } = connectionPool(config);
  const prefix = base.pathname.replace(/\/+$/, '');

  return {
    forward(req, res) {
      const headers: http.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(req.headers)) if (!DROPPED.has(k) && v !== undefined) headers[k] = v;
      if (config.token !== undefined) headers['authorization'] = `Bearer ${config.token}`;
      const url = new URL(base.href);
      const [path = '/', search = ''] = (req.url ?? '/').split(/\?(.*)/s, 2);
      url.pathname = prefix + path;
      url.search = search;
      const upstream = transport.request(url, { method: req.method ?? 'GET', headers, agent }, (answer) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(answer.headers))
          if (!DROPPED.has(k) && k !== 'set-cookie' && v !== undefined) out[k] = v;
        res.writeHead(answer.statusCode ?? 502, out);
        // A watch's headers go out at once, as the API server sends them, and its events as they come.
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      upstream.on('error', (err) => {
        if (res.headersSent) {
          res.destroy();
          return;
        }
        const body = JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'ServiceUnavailable',
          code: 503,
          message: messages.upstream(err.message),
        });
        res.writeHead(503, { 'content-type': 'application/json' }).end(body);
      });
      // The page went away (a closed watch, a reload): so does the request to the API server.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      req.pipe(upstream);
    },
    close() {
      agent.destroy();
    },
  };
}
