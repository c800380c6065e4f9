// The pre-1.10 node proxy path `/api/v1/proxy/nodes/<name>/<path>` reads as the nodes/proxy subresource, so it is
// authenticated and authorized exactly as `/api/v1/nodes/<name>/proxy/<path>`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../../src/server/requestinfo.js';

const q = new URLSearchParams();

describe('parseRequestInfo: the old node proxy path', () => {
  test('same attributes as the subresource form, and the target path as sent', () => {
    const legacy = parseRequestInfo('GET', '/api/v1/proxy/nodes/node-1/configz', q);
    const current = parseRequestInfo('GET', '/api/v1/nodes/node-1/proxy/configz', q);
    for (const k of [
      'isResourceRequest',
      'verb',
      'apiPrefix',
      'apiGroup',
      'apiVersion',
      'namespace',
      'resource',
      'subresource',
      'name',
      'rest',
    ] as const) {
      assert.deepEqual(legacy[k], current[k], k);
    }
    assert.equal(legacy.resource, 'nodes');
    assert.equal(legacy.subresource, 'proxy');
    assert.equal(legacy.verb, 'get');
    assert.equal(legacy.legacyProxyPath, '/configz');
    assert.equal(current.legacyProxyPath, undefined);
  });

  test('a port, a deeper encoded path, and no path at all', () => {
    const withPort = parseRequestInfo('POST', '/api/v1/proxy/nodes/node-1:10250/a/b%2Fc/', q);
    assert.equal(withPort.name, 'node-1');
    assert.equal(withPort.port, '10250');
    assert.equal(withPort.verb, 'create');
    assert.equal(withPort.legacyProxyPath, '/a/b%2Fc/');
    const bare = parseRequestInfo('GET', '/api/v1/proxy/nodes/node-1', q);
    assert.equal(bare.subresource, 'proxy');
    assert.equal(bare.legacyProxyPath, '');
  });

  test('other resources under /proxy/ are not rewritten', () => {
    const pods = parseRequestInfo('GET', '/api/v1/proxy/pods/x', q);
    assert.equal(pods.resource, 'proxy');
    assert.equal(pods.legacyProxyPath, undefined);
  });
});
