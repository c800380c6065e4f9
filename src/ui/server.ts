// `dkc ui`'s HTTP server: the page's built assets, the API proxy (/api, /apis, watches included) and the page's own
// endpoints (/ui/…: a node's diff, the rollout actions, and the config channel found once at start), every request
// first checked for an accepted Host and Origin. It listens on loopback by default, as kubectl proxy does.

import * as http from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { discoverChannel, type ConfigChannel } from '../client/channel.js';
import { RestClient, type ClientConfig } from '../client/index.js';
import { isSpecCommand } from '../workflow/rollout/index.js';
import { failureAnswer, nodeDiff, rolloutAction, type Answer } from './api.js';
import { messages, UiError } from './errors.js';
import { checkPath, checkRequest } from './hosts.js';
import { apiProxy } from './proxy.js';
import { errorMessage } from '../util/errors.js';

export interface UiServerOptions {
  config: ClientConfig;
  address: string;
  /** 0 picks a free port. */
  port: number;
  acceptHosts: readonly RegExp[];
  /** The built page (index.html, app.js, app.css); default: beside this module, where the build writes it. */
  assetsDir?: string;
}

export interface UiServer {
  url: string;
  /** The line that says which config channel the pages read assignments from (or why it fell back to the Node). */
  channelSays: string;
  close(): Promise<void>;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

// The page loads only its own script and style and talks only to this server.
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

interface Asset {
  type: string;
  bytes: Buffer;
}

/** Every file of the built page, read once: the server never reads a path a request names. */
async function loadAssets(dir: string): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const name of await readdir(dir)) {
    const type = TYPES[extname(name)];
    if (type) assets.set(`/${name}`, { type, bytes: await readFile(join(dir, name)) });
  }
  const index = assets.get('/index.html');
  if (index) assets.set('/', index);
  return assets;
}

function send(res: http.ServerResponse, answer: Answer): void {
  res.writeHead(answer.code, { 'content-type': 'application/json', ...PAGE_HEADERS }).end(JSON.stringify(answer.body));
}

function refuse(res: http.ServerResponse, code: number, message: string): void {
  send(res, {
    code,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: code === 403 ? 'Forbidden' : 'NotFound',
      message,
      code,
    },
  });
}

const isApiPath = (path: string): boolean => /^\/apis?(\/|$)/.test(path);

export async function startUiServer(options: UiServerOptions): Promise<UiServer> {
  const assets = await loadAssets(options.assetsDir ?? fileURLToPath(new URL('./web/', import.meta.url)));
  const client = new RestClient(options.config, { timeoutMs: 30_000 });
  const proxy = apiProxy(options.config);
  // The pages read assignments where the cluster keeps them. A viewer still shows the fleet when the channel cannot
  // be decided (a server that cannot be asked, or no NodeConfig kind where one is needed): from the Nodes.
  let channel: ConfigChannel = 'node';
  let channelSays: string;
  try {
    const decision = await discoverChannel(client);
    channel = decision.channel;
    channelSays = decision.says;
  } catch (err) {
    channelSays = messages.channelFallback(errorMessage(err));
  }

  async function ui(req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> {
    const diff = /^\/ui\/nodes\/([^/]+)\/diff$/.exec(path);
    if (diff && req.method === 'GET') {
      send(res, { code: 200, body: await nodeDiff(client, decodeURIComponent(diff[1]!), channel) });
      return;
    }
    if (path === '/ui/channel' && req.method === 'GET') {
      send(res, { code: 200, body: { channel } });
      return;
    }
    const action = /^\/ui\/rollouts\/([^/]+)\/([a-z]+)$/.exec(path);
    if (action && isSpecCommand(action[2]!)) {
      if (req.method !== 'POST') return refuse(res, 405, messages.methodNotAllowed(req.method ?? ''));
      send(res, { code: 200, body: await rolloutAction(client, action[2], decodeURIComponent(action[1]!)) });
      return;
    }
    refuse(res, 404, messages.notFound(path));
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    try {
      checkRequest(req.headers, options.acceptHosts);
      if (isApiPath(path)) {
        checkPath(path);
        proxy.forward(req, res);
        return;
      }
    } catch (err) {
      if (err instanceof UiError) return refuse(res, 403, err.message);
      throw err;
    }
    if (path.startsWith('/ui/')) {
      ui(req, res, path).catch((err: unknown) => send(res, failureAnswer(err, 502)));
      return;
    }
    const asset = req.method === 'GET' || req.method === 'HEAD' ? assets.get(path) : undefined;
    if (!asset) return refuse(res, 404, messages.notFound(path));
    res
      .writeHead(200, { 'content-type': asset.type, ...PAGE_HEADERS })
      .end(req.method === 'HEAD' ? undefined : asset.bytes);
  }

  const server = http.createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.address, () => resolve());
  });
  const where = server.address();
  const port = typeof where === 'object' && where ? where.port : options.port;
  const host = options.address.includes(':') ? `[${options.address}]` : options.address;
  return {
    url: `http://${host}:${port}/`,
    channelSays,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      proxy.close();
      client.close();
    },
  };
}
