import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeIP, podRangeOf, RUNTIME_FILE, RuntimeStore, startedPod } from '../../../src/agent/pods/runtime.js';

test("a node's Pod range: its podCIDR's, else a stable one of its name", () => {
  assert.equal(podRangeOf('node-1', '10.244.3.0/24'), '10.244.3.');
  assert.equal(podRangeOf('node-1', undefined), podRangeOf('node-1', undefined));
  assert.notEqual(podRangeOf('node-1', undefined), podRangeOf('node-2', undefined));
  assert.match(podRangeOf('node-1', 'fd00::/64'), /^10\.\d+\.\d+\.$/);
});

test('the lowest free address from .2, none when all are taken', () => {
  const pod = (uid: string, ip: string) => ({ uid, namespace: 'd', name: uid, ip, startedAt: '', containers: [] });
  assert.equal(freeIP('10.1.1.', { pods: {} }), '10.1.1.2');
  assert.equal(freeIP('10.1.1.', { pods: { a: pod('a', '10.1.1.2'), b: pod('b', '10.1.1.4') } }), '10.1.1.3');
  const all = Object.fromEntries([...Array(253).keys()].map((i) => [`u${i}`, pod(`u${i}`, `10.1.1.${i + 2}`)]));
  assert.equal(freeIP('10.1.1.', { pods: all }), undefined);
});

test('the runtime file outlives the store: what one saves the next loads, private to the node', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-runtime-'));
  try {
    const first = new RuntimeStore(dir);
    assert.deepEqual(await first.load(), { pods: {} }, 'no file: an empty runtime');
    const p = startedPod(
      {
        metadata: { name: 'web', namespace: 'default', uid: 'u1' },
        spec: { containers: [{ name: 'c', image: 'pause' }] },
      },
      '10.1.1.2',
      '2026-12-04T00:00:00Z',
    );
    await first.save({ pods: { u1: p } });
    const second = new RuntimeStore(dir);
    assert.deepEqual(await second.load(), { pods: { u1: p } });
    assert.equal((await stat(join(dir, RUNTIME_FILE))).mode & 0o777, 0o600);
    assert.equal(
      (JSON.parse(await readFile(join(dir, RUNTIME_FILE), 'utf8')) as { pods: Record<string, { startedAt: string }> })
        .pods['u1']?.startedAt,
      '2026-12-04T00:00:00Z',
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a runtime file that does not parse is an error, not an empty runtime', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dkc-runtime-'));
  try {
    await mkdir(join(dir, 'pods'));
    await writeFile(join(dir, RUNTIME_FILE), '{"pods": {');
    await assert.rejects(new RuntimeStore(dir).load(), SyntaxError);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
