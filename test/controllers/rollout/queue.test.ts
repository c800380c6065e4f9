// The work queue: keys collapse while waiting, a key re-added during processing runs again after it, delayed adds
// keep the earliest due time on the injected clock, and shutting down releases the waiting worker.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue } from '../../../src/controllers/rollout/queue.js';
import { WrittenObjects } from '../../../src/controllers/rollout/written.js';
import { FakeClock } from '../../helpers/fakeclock.js';

describe('WorkQueue', () => {
  it('a key added several times before it is taken is processed once', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.length, 2);
    assert.equal(await q.next(), 'a');
    assert.equal(await q.next(), 'b');
  });

  it('a key added while it is processed is not handed out twice at once, but again after done', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('a');
    assert.equal(await q.next(), 'a');
    q.add('a');
    assert.equal(q.length, 0);
    const next = q.next();
    q.done('a');
    assert.equal(await next, 'a');
  });

  it('delayed adds fire on the clock, the earliest due time wins', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    q.addAfter('a', 5_000);
    q.addAfter('a', 1_000);
    q.addAfter('a', 9_000);
    clock.advance(999);
    assert.equal(q.length, 0);
    clock.advance(1);
    assert.equal(await q.next(), 'a');
    q.done('a');
    clock.advance(10_000);
    assert.equal(q.length, 0, 'the later timers were replaced, not kept');
  });

  it('shutting down releases a waiting worker and cancels timers', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    q.addAfter('a', 1_000);
    const waiting = q.next();
    q.shutDown();
    assert.equal(await waiting, undefined);
    assert.equal(clock.pendingTimers, 0);
    q.add('b');
    assert.equal(await q.next(), undefined);
  });
});

describe('WrittenObjects', () => {
  const obj = (rv: string) => ({ metadata: { name: 'n', resourceVersion: rv } });

  it('our write is preferred until the informer has caught up with it', () => {
    const w = new WrittenObjects<ReturnType<typeof obj>>();
    w.record('n', obj('12'), obj('10'));
    assert.equal(w.view('n', obj('10'))?.metadata.resourceVersion, '12');
    assert.equal(w.view('n', obj('12'))?.metadata.resourceVersion, '12');
    assert.equal(
      w.view('n', obj('11'))?.metadata.resourceVersion,
      '11',
      'once caught up, the informer is the source again',
    );
  });

  it('a newer change by someone else wins over our write', () => {
    const w = new WrittenObjects<ReturnType<typeof obj>>();
    w.record('n', obj('12'), obj('10'));
    assert.equal(w.view('n', obj('15'))?.metadata.resourceVersion, '15');
  });

  it('opaque resourceVersions: the informer wins once it moved past what it had at the write', () => {
    const w = new WrittenObjects<ReturnType<typeof obj>>();
    w.record('n', obj('b'), obj('a'));
    assert.equal(w.view('n', obj('a'))?.metadata.resourceVersion, 'b');
    assert.equal(w.view('n', obj('c'))?.metadata.resourceVersion, 'c');
  });

  it('a deleted object is not resurrected', () => {
    const w = new WrittenObjects<ReturnType<typeof obj>>();
    w.record('n', obj('12'), obj('10'));
    assert.equal(w.view('n', undefined), undefined);
  });
});
