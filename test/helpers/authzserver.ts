// An in-process API server with dkc server's own authorization and admission (Node,RBAC, NodeRestriction and the
// config checks) and its shipped CRDs, and requests to it as any user through the admin's impersonation: for tests of
// what a node, or a user with given rights, may do, without starting a process.

import { request } from 'node:https';
import type { ConfigChannel } from '../../src/api/dkc/channel.js';
import { clusterAuthorization } from '../../src/server/auth/index.js';
import { readCrdManifests, SHIPPED_CRD_DIR } from '../../src/server/crd/install.js';
import type { ApiServer } from '../../src/server/apiserver.js';
import { requestOptions, startInProcessServer, type InProcessServer } from './inprocessserver.js';

export interface Identity {
  user: string;
  groups?: string[];
}

export interface Answer {
  status: number;
  body: string;
  /** The response's Warning headers. */
  warnings: string[];
}

export interface AuthzServer extends InProcessServer {
  /** One request as `who` (impersonated by the cluster admin). */
  as(who: Identity, method: string, path: string, body?: unknown, contentType?: string): Promise<Answer>;
}

/** The cluster admin, impersonated by itself (so its requests can carry any content type). */
export const ADMIN: Identity = { user: 'admin', groups: ['system:masters'] };

export const nodeIdentity = (name: string): Identity => ({ user: `system:node:${name}`, groups: ['system:nodes'] });

export async function startAuthzServer(name: string, channel: ConfigChannel = 'node'): Promise<AuthzServer> {
  let server: ApiServer | undefined;
  const authz = clusterAuthorization(
    ['Node', 'RBAC'],
    (group, plural) => server?.cacheOf(group, plural),
    () => server?.reads,
    { nodeConfigSourceEdge: channel === 'node', assignmentChannel: channel },
  );
  const s = await startInProcessServer(name, {
    authorizer: authz.authorizer,
    admission: authz.admission,
    afterWrite: authz.afterWrite,
  });
  try {
    server = s.server;
    await s.server.installCrds(await readCrdManifests(SHIPPED_CRD_DIR));
    await authz.start(s.server);
  } catch (err) {
    await s.close();
    throw err;
  }
  const close = async () => {
    authz.stop();
    await s.close();
  };
  return {
    ...s,
    close,
    as: (who, method, path, body, contentType = 'application/json') =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string | string[]> = {
          'content-type': contentType,
          'Impersonate-User': who.user,
          ...(who.groups?.length ? { 'Impersonate-Group': who.groups } : {}),
        };
        const opts = requestOptions(new URL(path, s.base), method, s.pki, s.pki.admin, {});
        const req = request({ ...opts, headers, timeout: 20_000 }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => {
            // Each Warning header apart (node:http joins repeated ones with commas).
            const warnings = res.rawHeaders.filter((_v, i) => i % 2 === 1 && /^warning$/i.test(res.rawHeaders[i - 1]!));
            resolve({ status: res.statusCode ?? 0, body: text, warnings });
          });
        });
        req.on('error', reject);
        req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
      }),
  };
}
