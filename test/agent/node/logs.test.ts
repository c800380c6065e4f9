// /logs/ on the agent's HTTPS port, with real TLS and a real directory: the listing, a file's contents, refused
// traversal (.. segments, encoded or not, and a symbolic link leading out), and the nodes/log authorization.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setDefaults, toConfigzJSON } from '../../../src/kubeletconfig/index.js';
import { createMetricsRegistry, startAgentServers, type AgentServers } from '../../../src/agent/node/index.js';
import type { RequestAttributes } from '../../../src/agent/node/httpserver.js';
import { directoryListing, logPathSegments } from '../../../src/agent/node/logs.js';
import { httpGet, type Reply } from '../../helpers/http.js';

// The path goes as written (a URL would resolve its `..` segments before they reach the agent).
const get = (port: number, path: string): Promise<Reply> => httpGet(`https://127.0.0.1:${port}/`, { path });

let dir: string;
let logDir: string;
const open: AgentServers[] = [];

async function start(authorize?: (attrs: RequestAttributes) => boolean): Promise<number> {
  const cfg = setDefaults({
    address: '127.0.0.1',
    authentication: { anonymous: { enabled: true } },
    authorization: { mode: authorize ? 'Webhook' : 'AlwaysAllow' },
  });
  cfg.port = 0;
  cfg.readOnlyPort = 0;
  cfg.healthzPort = 0;
  const s = await startAgentServers({
    config: cfg,
    certDir: join(dir, 'pki'),
    nodeName: 'node-a',
    configz: () => toConfigzJSON(cfg),
    healthz: () => ({ ok: true }),
    metrics: createMetricsRegistry(),
    logDir,
    ...(authorize ? { authorize: (_user, attrs) => Promise.resolve(authorize(attrs)) } : {}),
  });
  open.push(s);
  return s.ports.https;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-agent-logs-'));
  logDir = join(dir, 'logs');
  await mkdir(join(logDir, 'old'), { recursive: true });
  await writeFile(join(logDir, 'agent.log'), 'I1124 10:00:00.000000    1 agent.ts:1] hello\n');
  await writeFile(join(logDir, 'old', 'agent.log.1'), 'older\n');
  await writeFile(join(dir, 'secret.key'), 'not for you\n');
  await symlink(join(dir, 'secret.key'), join(logDir, 'escape.log'));
});

after(async () => {
  for (const s of open.splice(0)) await s.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('/logs/', () => {
  it('lists the directory, sub-directories with a slash, as Go’s FileServer does', async () => {
    const port = await start();
    const r = await get(port, '/logs/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(
      r.body,
      /<a href="agent.log">agent.log<\/a>\n<a href="escape.log">escape.log<\/a>\n<a href="old\/">old\/<\/a>\n<\/pre>/,
    );
    const bare = await get(port, '/logs');
    assert.deepEqual([bare.status, bare.headers['location']], [301, 'logs/']);
    const sub = await get(port, '/logs/old');
    assert.deepEqual([sub.status, sub.headers['location']], [301, 'old/']);
    assert.match((await get(port, '/logs/old/')).body, /agent\.log\.1/);
  });

  it('serves a file’s contents', async () => {
    const port = await start();
    const r = await get(port, '/logs/agent.log');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(r.body, 'I1124 10:00:00.000000    1 agent.ts:1] hello\n');
    assert.equal((await get(port, '/logs/old/agent.log.1')).body, 'older\n');
    assert.equal((await get(port, '/logs/nothing.log')).status, 404);
  });

  it('refuses to leave the directory', async () => {
    const port = await start();
    for (const path of [
      '/logs/../secret.key',
      '/logs/%2e%2e/secret.key',
      '/logs/old/..%2f..%2fsecret.key',
      '/logs/..%5csecret.key',
      '/logs/a%00b',
    ]) {
      const r = await get(port, path);
      assert.equal(r.status, 400, path);
      assert.doesNotMatch(r.body, /not for you/, path);
    }
    const link = await get(port, '/logs/escape.log');
    assert.equal(link.status, 404, 'a symbolic link out of the directory is not followed');
    assert.doesNotMatch(link.body, /not for you/);
  });

  it('is authorized as the nodes/log subresource, and refused with 403 when the webhook says no', async () => {
    const asked: RequestAttributes[] = [];
    const port = await start((attrs) => (asked.push(attrs), attrs.subresource !== 'log'));
    const r = await get(port, '/logs/agent.log');
    assert.equal(r.status, 403);
    assert.match(r.body, /Forbidden \(user=system:anonymous, verb=get, resource=nodes, subresource=log\)/);
    assert.deepEqual(asked, [{ verb: 'get', resource: 'nodes', subresource: 'log', name: 'node-a' }]);
    assert.equal((await get(port, '/configz')).status, 200, 'the same webhook lets /configz (proxy) through');
  });

  it('is not found when the agent has no log file', async () => {
    const cfg = setDefaults({
      address: '127.0.0.1',
      authentication: { anonymous: { enabled: true } },
      authorization: { mode: 'AlwaysAllow' },
    });
    Object.assign(cfg, { port: 0, readOnlyPort: 0, healthzPort: 0 });
    const s = await startAgentServers({
      config: cfg,
      certDir: join(dir, 'pki'),
      nodeName: 'node-a',
      configz: () => '{}',
      healthz: () => ({ ok: true }),
      metrics: createMetricsRegistry(),
    });
    open.push(s);
    assert.equal((await get(s.ports.https, '/logs/')).status, 404);
  });
});

describe('logPathSegments and directoryListing', () => {
  it('takes plain and encoded names, refuses .. in any spelling', () => {
    assert.deepEqual(logPathSegments('/logs/'), []);
    assert.deepEqual(logPathSegments('/logs/a%20b/./c.log'), ['a b', 'c.log']);
    assert.equal(logPathSegments('/logs/x/../y'), undefined);
    assert.equal(logPathSegments('/logs/%2E%2E'), undefined);
    assert.equal(logPathSegments('/logs/%zz'), undefined);
  });

  it('escapes names in the HTML', () => {
    assert.match(
      directoryListing([{ name: '<b>&"', dir: false }]),
      /<a href="%3Cb%3E&amp;%22">&lt;b&gt;&amp;&#34;<\/a>/,
    );
  });
});
