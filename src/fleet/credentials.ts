// The fleet's node credentials: each simulated node authenticates as itself (system:node:<name> in system:nodes), so
// the Node authorizer and NodeRestriction treat it exactly as a real agent. Two kinds (ADR 17):
// - token (the default, for a dkc server): a node token signed by the cluster CA key (src/pki/nodetoken.ts). It goes
//   with each request, so every node shares the fleet's one pool of connections: a node then costs the process its
//   watch connection, instead of a TLS context and a connection for its watch plus one or more for its requests.
// - certificate (any API server, a kube-apiserver too): a client certificate from the cluster CA. All the fleet's
//   certificates share one P-256 key (kept in <dataDir>/pki/client.key): minting a key is a third of the cost of a
//   certificate, and the nodes live in one process anyway, so one key per node would protect nothing. Certificates
//   are kept in <dataDir>/<node>/pki/client.crt and reused while the CA and key still match them.

import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomicfile.js';
import type { LeafIssuer, LeafKeyPair } from '../pki/index.js';
import { FleetError, messages } from './errors.js';
import { errorMessage } from '../util/errors.js';
import { systemClock, type Clock } from '../util/clock.js';
import { readFileIfPresent } from '../util/optionalfile.js';

export type NodeCredential = { certPem: string; keyPem: string } | { token: string };

export type CredentialKind = 'token' | 'certificate';
/** A node token's lifetime, as long as a node certificate's (it lives in memory only, and each instance gets a new one). */
const TOKEN_TTL_SECONDS = 365 * 86_400;

export interface CredentialSource {
  /** The credential of `name`, from disk when still valid, else newly issued and written. */
  credential(name: string, dir: string): Promise<NodeCredential>;
}

async function readCA(certFile: string, keyFile: string): Promise<{ certPem: string; keyPem: string }> {
  const read = async (file: string): Promise<string> => {
    try {
      return await readFile(file, 'utf8');
    } catch (err) {
      throw new FleetError('DKC_FLEET_CA_UNREADABLE', messages.caUnreadable(file, errorMessage(err)), { cause: err });
    }
  };
  return { certPem: await read(certFile), keyPem: await read(keyFile) };
}

/**
 * Whether `certPem` was issued by `ca` for `key`, names `user` (a stale certificate from another cluster does not) and
 * has not expired at `now`.
 */
function stillValid(certPem: string, ca: X509Certificate, key: KeyObject, user: string, now: Date): boolean {
  try {
    const cert = new X509Certificate(certPem);
    return (
      cert.subject.includes(`CN=${user}`) &&
      cert.checkIssued(ca) &&
      cert.verify(ca.publicKey) &&
      cert.checkPrivateKey(key) &&
      Date.parse(cert.validTo) > now.getTime()
    );
  } catch {
    return false;
  }
}

/** A credential source for the fleet in `dataDir`, issuing with the CA in `caCertFile`/`caKeyFile`. */
export async function fleetCredentials(
  dataDir: string,
  caCertFile: string,
  caKeyFile: string,
  kind: CredentialKind = 'token',
  /** Wall time, for the tokens' issue time and the certificates' validity. */
  clock: Clock = systemClock,
): Promise<CredentialSource> {
  const ca = await readCA(caCertFile, caKeyFile);
  if (kind === 'token') {
    const { nodeTokenSigner } = await import('../pki/nodetoken.js');
    let sign: ReturnType<typeof nodeTokenSigner>;
    try {
      sign = nodeTokenSigner(ca.keyPem);
    } catch (err) {
      throw new FleetError('DKC_FLEET_CA_UNREADABLE', messages.caUnreadable(caKeyFile, errorMessage(err)), {
        cause: err,
      });
    }
    return {
      credential: async (name) => ({ token: sign(name, Math.floor(clock.now().getTime() / 1000), TOKEN_TTL_SECONDS) }),
    };
  }
  return certificateCredentials(dataDir, ca, clock);
}

async function certificateCredentials(
  dataDir: string,
  ca: { certPem: string; keyPem: string },
  clock: Clock,
): Promise<CredentialSource> {
  const pki = await import('../pki/index.js');
  const issuer: LeafIssuer = await pki.leafIssuer(ca);
  const keyFile = join(dataDir, 'pki', 'client.key');
  await mkdir(join(dataDir, 'pki'), { recursive: true, mode: 0o700 });
  let keyPem = await readFileIfPresent(keyFile);
  let key: LeafKeyPair | undefined;
  if (keyPem !== undefined) {
    try {
      key = await importLeafKey(keyPem);
    } catch {
      keyPem = undefined;
    }
  }
  if (key === undefined) {
    key = await pki.newLeafKeyPair();
    await writeFileAtomic(keyFile, key.keyPem, 0o600);
  }
  const caX509 = new X509Certificate(ca.certPem);
  const keyObject = createPrivateKey(key.keyPem);
  const shared = key;
  return {
    async credential(name, dir) {
      const user = `system:node:${name}`;
      const certFile = join(dir, 'pki', 'client.crt');
      const existing = await readFileIfPresent(certFile);
      const now = clock.now();
      if (existing !== undefined && stillValid(existing, caX509, keyObject, user, now))
        return { certPem: existing, keyPem: shared.keyPem };
      const issued = await issuer.issue(
        { commonName: user, organizations: ['system:nodes'], usages: ['client'], now },
        shared,
      );
      await mkdir(join(dir, 'pki'), { recursive: true });
      await writeFileAtomic(certFile, issued.certPem, 0o644);
      return issued;
    },
  };
}

/** The public half of a stored P-256 key, as WebCrypto needs it to put it into certificates. */
async function importLeafKey(keyPem: string): Promise<LeafKeyPair> {
  const jwk = createPrivateKey(keyPem).export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || jwk.x === undefined || jwk.y === undefined)
    throw new Error('not a P-256 key');
  const publicKey = await globalThis.crypto.subtle.importKey(
    'jwk',
    { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y },
    { name: 'ECDSA', namedCurve: 'P-256' },
    true,
    ['verify'],
  );
  return { publicKey, keyPem };
}
