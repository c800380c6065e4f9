import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isOwnAddress } from '../../src/server/proxy.js';

describe('isOwnAddress', () => {
  const locals = ['127.0.0.1', '::1', '10.1.2.3', 'fe80::1'];
  const cases: [string, number, { address: string; port: number }, boolean][] = [
    ['127.0.0.1', 6443, { address: '127.0.0.1', port: 6443 }, true],
    ['127.0.0.2', 6443, { address: '127.0.0.1', port: 6443 }, true],
    ['::1', 6443, { address: '127.0.0.1', port: 6443 }, true],
    ['::ffff:127.0.0.1', 6443, { address: '127.0.0.1', port: 6443 }, true],
    ['127.0.0.1', 10250, { address: '127.0.0.1', port: 6443 }, false],
    ['10.1.2.3', 6443, { address: '127.0.0.1', port: 6443 }, false],
    ['10.1.2.3', 6443, { address: '0.0.0.0', port: 6443 }, true],
    ['10.1.2.3', 6443, { address: '::', port: 6443 }, true],
    ['127.0.0.1', 6443, { address: '::', port: 6443 }, true],
    ['10.9.9.9', 6443, { address: '0.0.0.0', port: 6443 }, false],
    ['10.1.2.3', 6443, { address: '10.1.2.3', port: 6443 }, true],
    ['127.0.0.1', 6443, { address: '10.1.2.3', port: 6443 }, false],
  ];
  for (const [ip, port, listen, own] of cases) {
    it(`${ip}:${port} against a listener on ${listen.address}:${listen.port} → ${own}`, () => {
      assert.equal(isOwnAddress(ip, port, listen, locals), own);
    });
  }
});
