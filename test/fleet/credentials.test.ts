// The fleet's node credentials on the clock they are given: a node token carries its issue time, and a stored node
// certificate is reused while it is valid and issued again once it has expired.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fleetCredentials } from '../../src/fleet/credentials.js';
import { createCA } from '../../src/pki/index.js';
import { FakeClock } from '../helpers/fakeclock.js';

const DAY_MS = 86_400_000;
let dir: string;
let caCert: string;
let caKey: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-fleetcreds-'));
  const ca = await createCA('fleet-test-ca', { now: new Date(Date.UTC(2024, 0, 1)) });
  caCert = join(dir, 'ca.crt');
  caKey = join(dir, 'ca.key');
  await writeFile(caCert, ca.certPem);
  await writeFile(caKey, ca.keyPem);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fleet credentials', () => {
  it("issue a node token at the clock's time", async () => {
    const clock = new FakeClock(Date.UTC(2024, 0, 15, 10, 0, 0));
    const source = await fleetCredentials(dir, caCert, caKey, 'token', clock);
    const cred = await source.credential('sim-1', join(dir, 'sim-1'));
    assert.ok('token' in cred);
    const claims = JSON.parse(Buffer.from(cred.token.split('.')[1]!, 'base64url').toString('utf8')) as { iat: number };
    assert.equal(claims.iat, Date.UTC(2024, 0, 15, 10, 0, 0) / 1000);
  });

  it('reuse a stored certificate until it expires by the clock, then issue a new one', async () => {
    const clock = new FakeClock(Date.UTC(2024, 0, 15, 10, 0, 0));
    const source = await fleetCredentials(dir, caCert, caKey, 'certificate', clock);
    const nodeDir = join(dir, 'sim-2');
    const first = await source.credential('sim-2', nodeDir);
    assert.ok('certPem' in first);
    const validTo = Date.parse(new X509Certificate(first.certPem).validTo);
    assert.ok(validTo < clock.now().getTime() + 400 * DAY_MS, `issued at the clock's time, valid to ${validTo}`);
    clock.advance(300 * DAY_MS);
    assert.deepEqual(await source.credential('sim-2', nodeDir), first, 'still valid: reused');
    clock.advance(validTo - clock.now().getTime() + 1_000);
    const renewed = await source.credential('sim-2', nodeDir);
    assert.ok('certPem' in renewed);
    assert.notEqual(renewed.certPem, first.certPem, 'expired: issued again');
  });
});
