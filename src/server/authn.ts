// Authentication: TLS client certificates signed by the cluster CA (user = CN, groups = O) and static bearer
// tokens from a CSV token file (`token,user,uid,"group1,group2"`, kube-apiserver's --token-auth-file format).
// Every authenticated identity also gets the group system:authenticated. A bearer token that is not in the file may
// be a node token signed by the client CA (src/pki/nodetoken.ts): it names a node exactly as a node certificate does.

import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { timingSafeEqual, type KeyObject } from 'node:crypto';
import { NODES_GROUP, checkNodeToken } from '../pki/nodetoken.js';
import type { UserInfo } from './authz.js';
import { systemClock, type Clock } from '../util/clock.js';
import { CodedError } from '../util/errors.js';

/** A --token-auth-file that cannot be read as kube-apiserver's CSV. */
export class TokenFileError extends CodedError<'DKC_SERVER_INVALID_TOKEN_FILE'> {
  override name = 'TokenFileError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_SERVER_INVALID_TOKEN_FILE', message, options);
  }
}

/** Parses one CSV line with double-quoted fields ("" escapes a quote). */
function parseCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export function parseTokenFile(text: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  text.split(/\r?\n/).forEach((raw, idx) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const fields = parseCsvLine(line);
    if (fields.length < 3 || !fields[0] || !fields[1]) {
      throw new TokenFileError(`token file line ${idx + 1}: expected token,user,uid[,"groups"]`);
    }
    const groups = fields[3]
      ? fields[3]
          .split(',')
          .map((g) => g.trim())
          .filter(Boolean)
      : [];
    tokens.set(fields[0], { name: fields[1], uid: fields[2] ?? '', groups });
  });
  return tokens;
}

function withAuthenticated(u: UserInfo): UserInfo {
  return u.groups.includes('system:authenticated') ? u : { ...u, groups: [...u.groups, 'system:authenticated'] };
}

/** User = the certificate's CN, groups = its O values; null when it names no user. */
function userOf(cert: PeerCertificate | undefined): UserInfo | null {
  const subject = cert?.subject as Record<string, string | string[]> | undefined;
  const cn = subject?.['CN'];
  const o = subject?.['O'];
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (!name) return null;
  const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
  return withAuthenticated({ name, groups: [...groups] });
}

const MAX_VERIFIED_NODE_TOKENS = 20_000;

export class Authenticator {
  /**
   * The client certificate's identity per connection (null: none). Reading the peer certificate builds a large
   * object (fingerprints, raw DER) on every call; a connection's certificate cannot change, as the server refuses
   * renegotiation (like kube-apiserver, whose TLS stack has none).
   */
  private readonly byConnection = new WeakMap<TLSSocket, UserInfo | null>();

  /**
   * Node tokens already verified, until they expire: a signature check costs ~0.1 ms, and each node sends its token
   * with every request. Bounded; the oldest entry goes first.
   */
  private readonly verifiedNodeTokens = new Map<string, { user: UserInfo; expiresAt: number }>();

  constructor(
    private readonly tokens: Map<string, UserInfo> = new Map(),
    /** Keys that sign node tokens (the client CA's P-256 keys); none: node tokens are refused. */
    private readonly nodeTokenKeys: readonly KeyObject[] = [],
    /** Wall time, for the node tokens' validity. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** The request's identity, or undefined when it presents no valid credential. */
  authenticate(req: IncomingMessage): UserInfo | undefined {
    const fromCert = this.certificateUser(req.socket as TLSSocket);
    if (fromCert) return { ...fromCert, groups: [...fromCert.groups] };
    const auth = req.headers['authorization'];
    if (typeof auth === 'string') {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      if (m) return this.lookupToken(m[1]!) ?? this.nodeTokenUser(m[1]!);
    }
    return undefined;
  }

  private certificateUser(socket: TLSSocket): UserInfo | null {
    let user = this.byConnection.get(socket);
    if (user === undefined) {
      user = socket.authorized ? userOf(socket.getPeerCertificate()) : null;
      this.byConnection.set(socket, user);
    }
    return user;
  }

  private lookupToken(token: string): UserInfo | undefined {
    const given = Buffer.from(token);
    for (const [t, user] of this.tokens) {
      const b = Buffer.from(t);
      if (b.length === given.length && timingSafeEqual(b, given)) return withAuthenticated(user);
    }
    return undefined;
  }

  private nodeTokenUser(token: string): UserInfo | undefined {
    if (this.nodeTokenKeys.length === 0) return undefined;
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const known = this.verifiedNodeTokens.get(token);
    if (known && known.expiresAt > now) return { ...known.user, groups: [...known.user.groups] };
    this.verifiedNodeTokens.delete(token);
    const check = checkNodeToken(token, this.nodeTokenKeys, now);
    if (!check.ok) return undefined;
    const user = withAuthenticated({ name: check.user, groups: [NODES_GROUP] });
    if (this.verifiedNodeTokens.size >= MAX_VERIFIED_NODE_TOKENS)
      this.verifiedNodeTokens.delete(this.verifiedNodeTokens.keys().next().value!);
    this.verifiedNodeTokens.set(token, { user, expiresAt: check.expiresAt });
    return { ...user, groups: [...user.groups] };
  }
}
