// Which requests dkc ui answers: loopback Host names only by default (as kubectl proxy's --accept-hosts), a
// browser's Origin only when it is the page's own, and kubectl proxy's refused paths.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkPath, checkRequest, DEFAULT_ACCEPT_HOSTS, hostOf, parseAcceptHosts } from '../../src/ui/hosts.js';

const accept = parseAcceptHosts(DEFAULT_ACCEPT_HOSTS);

describe('dkc ui host checks', () => {
  it('takes the host part of a Host header', () => {
    assert.equal(hostOf('localhost:8080'), 'localhost');
    assert.equal(hostOf('[::1]:8080'), '[::1]');
    assert.equal(hostOf('127.0.0.1'), '127.0.0.1');
  });

  it('accepts loopback hosts and refuses others (DNS rebinding)', () => {
    for (const host of ['localhost:8080', '127.0.0.1:8080', '[::1]:8080'])
      assert.doesNotThrow(() => checkRequest({ host }, accept));
    for (const host of ['evil.example:8080', '127.0.0.1.evil.example', '10.0.0.1:8080', '']) {
      assert.throws(() => checkRequest({ host }, accept), { code: 'DKC_UI_HOST_REFUSED' });
    }
  });

  it("accepts the page's own Origin only (CSRF)", () => {
    assert.doesNotThrow(() => checkRequest({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080' }, accept));
    for (const origin of ['http://evil.example', 'http://127.0.0.1:9999', 'null', 'http://localhost:8080']) {
      assert.throws(
        () => checkRequest({ host: '127.0.0.1:8080', origin }, accept),
        { code: 'DKC_UI_HOST_REFUSED' },
        origin,
      );
    }
  });

  it('takes --accept-hosts as kubectl does, and refuses exec and attach', () => {
    assert.doesNotThrow(() => checkRequest({ host: 'ui.internal:80' }, parseAcceptHosts('^ui\\.internal$')));
    assert.throws(() => parseAcceptHosts('(('), /--accept-hosts/);
    assert.throws(() => checkPath('/api/v1/namespaces/default/pods/p/exec'), { code: 'DKC_UI_PATH_REFUSED' });
    assert.doesNotThrow(() => checkPath('/api/v1/nodes'));
  });
});
