// Node tokens: a dkc-issued credential equivalent to a node's client certificate, for simulated fleets. A token is a
// compact JWS (ES256) signed with the cluster CA's key, naming one node: whoever may mint node certificates (holds the
// CA key) may mint these, and a dkc server verifies them with the CA certificate it already trusts for client
// certificates. The authenticated user is exactly a node certificate's: system:node:<name> in group system:nodes.
// Unlike a certificate, a token authenticates a request rather than a connection, so thousands of nodes can share one
// pool of connections (ADR 17). The signing input is ASCII ("<b64url>.<b64url>") and can never be a DER
// TBSCertificate (which starts with 0x30), so the key's two uses cannot be confused.

import { X509Certificate, createPrivateKey, sign, verify, type KeyObject } from 'node:crypto';

export const NODE_TOKEN_ISSUER = 'dkc.io/node-token';
export const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';
const HEADER = b64url(JSON.stringify({ alg: 'ES256', typ: 'JWT' }));
/** A DNS subdomain, as a Node's name must be. */
const NODE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** How far a token's issue time may lie in the future (clocks of two machines differ). */
const CLOCK_SKEW_SECONDS = 60;

function b64url(s: string | Buffer): string {
  return Buffer.from(s).toString('base64url');
}

export interface NodeTokenClaims {
  iss: string;
  sub: string;
  iat: number;
  exp: number;
}

/** A signer of node tokens with the CA key in `caKeyPem` (P-256). */
export function nodeTokenSigner(
  caKeyPem: string,
): (nodeName: string, nowSeconds: number, ttlSeconds: number) => string {
  const key = createPrivateKey(caKeyPem);
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('node tokens need a P-256 CA key');
  }
  return (nodeName, nowSeconds, ttlSeconds) => {
    if (!NODE_NAME.test(nodeName)) throw new Error(`${JSON.stringify(nodeName)} is not a valid node name`);
    const claims: NodeTokenClaims = {
      iss: NODE_TOKEN_ISSUER,
      sub: `${NODE_USER_PREFIX}${nodeName}`,
      iat: nowSeconds,
      exp: nowSeconds + ttlSeconds,
    };
    const input = `${HEADER}.${b64url(JSON.stringify(claims))}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };
}

/** The P-256 public keys among the certificates of a PEM bundle (a CA bundle may also hold others). */
export function nodeTokenKeys(caBundlePem: string): KeyObject[] {
  const blocks = caBundlePem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks
    .map((pem) => new X509Certificate(pem).publicKey)
    .filter((k) => k.asymmetricKeyType === 'ec' && k.asymmetricKeyDetails?.namedCurve === 'prime256v1');
}

export type NodeTokenCheck =
  { ok: true; node: string; user: string; expiresAt: number } | { ok: false; reason: string };

function decodeClaims(part: string): Partial<NodeTokenClaims> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `token` is a node token signed by one of `keys` and valid at `nowSeconds`. */
export function checkNodeToken(token: string, keys: readonly KeyObject[], nowSeconds: number): NodeTokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) return { ok: false, reason: 'not a node token' };
  const signature = Buffer.from(parts[2]!, 'base64url');
  const input = Buffer.from(`${parts[0]}.${parts[1]}`);
  if (
    signature.length !== 64 ||
    !keys.some((key) => verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature))
  ) {
    return { ok: false, reason: 'signature not from the cluster CA' };
  }
  const c = decodeClaims(parts[1]!);
  if (
    c?.iss !== NODE_TOKEN_ISSUER ||
    typeof c.sub !== 'string' ||
    typeof c.exp !== 'number' ||
    typeof c.iat !== 'number'
  ) {
    return { ok: false, reason: 'malformed claims' };
  }
  const node = c.sub.startsWith(NODE_USER_PREFIX) ? c.sub.slice(NODE_USER_PREFIX.length) : '';
  if (!NODE_NAME.test(node)) return { ok: false, reason: 'the subject is not a node' };
  if (c.exp <= nowSeconds) return { ok: false, reason: 'expired' };
  if (c.iat > nowSeconds + CLOCK_SKEW_SECONDS) return { ok: false, reason: 'issued in the future' };
  return { ok: true, node, user: c.sub, expiresAt: c.exp };
}
