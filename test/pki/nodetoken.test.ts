// Node tokens: what they carry, what a server accepts (and refuses), and the authenticator's cache of verified tokens.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { createCA, type CertKeyPem } from '../../src/pki/index.js';
import { checkNodeToken, nodeTokenKeys, nodeTokenSigner } from '../../src/pki/nodetoken.js';
import { Authenticator } from '../../src/server/authn.js';
import { FakeClock } from '../helpers/fakeclock.js';

const NOW = 1_900_000_000;
let ca: CertKeyPem;
let other: CertKeyPem;

before(async () => {
  [ca, other] = await Promise.all([createCA('dkc-test-ca'), createCA('another-ca')]);
});

/** A token with any header and claims, signed with `keyPem`: what an attacker holding some P-256 key could send. */
function forge(header: object, claims: object, keyPem: string): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key: createPrivateKey(keyPem), dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

describe('node tokens', () => {
  it('name one node, as system:node:<name>, until they expire', () => {
    const token = nodeTokenSigner(ca.keyPem)('sim-1', NOW, 3600);
    const keys = nodeTokenKeys(ca.certPem);
    assert.deepEqual(checkNodeToken(token, keys, NOW), {
      ok: true,
      node: 'sim-1',
      user: 'system:node:sim-1',
      expiresAt: NOW + 3600,
    });
    assert.deepEqual(checkNodeToken(token, keys, NOW + 3600), { ok: false, reason: 'expired' });
    assert.deepEqual(checkNodeToken(token, keys, NOW - 3600), { ok: false, reason: 'issued in the future' });
  });

  it('are refused when signed by another CA, altered, or not naming a node', () => {
    const keys = nodeTokenKeys(ca.certPem);
    const foreign = nodeTokenSigner(other.keyPem)('sim-1', NOW, 3600);
    assert.deepEqual(checkNodeToken(foreign, keys, NOW), { ok: false, reason: 'signature not from the cluster CA' });
    const [h, , s] = nodeTokenSigner(ca.keyPem)('sim-1', NOW, 3600).split('.');
    const claims = Buffer.from(
      JSON.stringify({ iss: 'dkc.io/node-token', sub: 'system:node:sim-2', iat: NOW, exp: NOW + 3600 }),
    ).toString('base64url');
    assert.equal(checkNodeToken(`${h}.${claims}.${s}`, keys, NOW).ok, false);
    const header = { alg: 'ES256', typ: 'JWT' };
    assert.deepEqual(
      checkNodeToken(
        forge(header, { iss: 'dkc.io/node-token', sub: 'admin', iat: NOW, exp: NOW + 60 }, ca.keyPem),
        keys,
        NOW,
      ),
      { ok: false, reason: 'the subject is not a node' },
    );
    assert.deepEqual(
      checkNodeToken(
        forge(header, { iss: 'elsewhere', sub: 'system:node:a', iat: NOW, exp: NOW + 60 }, ca.keyPem),
        keys,
        NOW,
      ),
      { ok: false, reason: 'malformed claims' },
    );
    assert.deepEqual(
      checkNodeToken(
        forge({ alg: 'none' }, { iss: 'dkc.io/node-token', sub: 'system:node:a', iat: NOW, exp: NOW + 60 }, ca.keyPem),
        keys,
        NOW,
      ),
      { ok: false, reason: 'not a node token' },
    );
    assert.throws(() => nodeTokenSigner(ca.keyPem)('Not_A_Node', NOW, 60), /not a valid node name/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    assert.throws(() => nodeTokenSigner(rsa), /P-256/);
  });

  it('a bundle trusts each of its P-256 CAs', () => {
    const keys = nodeTokenKeys(`${other.certPem}\n${ca.certPem}`);
    assert.equal(keys.length, 2);
    assert.equal(checkNodeToken(nodeTokenSigner(ca.keyPem)('n', NOW, 60), keys, NOW).ok, true);
  });
});

describe('Authenticator and node tokens', () => {
  const request = (token: string): IncomingMessage =>
    ({ socket: { authorized: false }, headers: { authorization: `Bearer ${token}` } }) as unknown as IncomingMessage;

  it('authenticates a node token as the node in system:nodes, and only until it expires, cached or not', () => {
    const clock = new FakeClock(NOW * 1000);
    const authn = new Authenticator(new Map(), nodeTokenKeys(ca.certPem), clock);
    const token = nodeTokenSigner(ca.keyPem)('sim-7', NOW, 100);
    const want = { name: 'system:node:sim-7', groups: ['system:nodes', 'system:authenticated'] };
    assert.deepEqual(authn.authenticate(request(token)), want);
    const cached = authn.authenticate(request(token))!;
    assert.deepEqual(cached, want);
    cached.groups.push('system:masters');
    assert.deepEqual(authn.authenticate(request(token)), want);
    clock.advance(100_000);
    assert.equal(authn.authenticate(request(token)), undefined);
  });

  it('refuses node tokens when it trusts no CA for them, and tokens of another CA', () => {
    const token = nodeTokenSigner(ca.keyPem)('sim-7', NOW, 100);
    assert.equal(new Authenticator(new Map(), [], new FakeClock(NOW * 1000)).authenticate(request(token)), undefined);
    assert.equal(
      new Authenticator(new Map(), nodeTokenKeys(other.certPem), new FakeClock(NOW * 1000)).authenticate(
        request(token),
      ),
      undefined,
    );
  });
});
