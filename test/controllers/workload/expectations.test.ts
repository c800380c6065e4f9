// kube's ControllerExpectations: a controller key is held back while its creates and deletions are unseen, freed as
// the informer shows them (each deletion counted once), by failed writes lowering them, or after five minutes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EXPECTATIONS_TIMEOUT_MS, Expectations } from '../../../src/controllers/workload/expectations.js';
import { FakeClock } from '../../helpers/fakeclock.js';

describe('expectations', () => {
  it('holds a key until every create is observed', () => {
    const e = new Expectations(new FakeClock());
    assert.equal(e.satisfied('ns/rs'), true, 'nothing recorded');
    e.expect('ns/rs', 2);
    assert.equal(e.satisfied('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfied('ns/rs'), true);
    assert.equal(e.satisfied('ns/other'), true, 'per key');
  });

  it('counts a deletion once however often it is seen', () => {
    const e = new Expectations(new FakeClock());
    e.expect('ns/rs', 0, ['ns/a', 'ns/b']);
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/a');
    assert.equal(e.satisfied('ns/rs'), false, 'b not yet gone');
    e.deletionObserved('ns/rs', 'ns/b');
    assert.equal(e.satisfied('ns/rs'), true);
  });

  it('lowers for creates never sent, and gives up after the timeout', () => {
    const clock = new FakeClock();
    const e = new Expectations(clock);
    e.expect('ns/rs', 7);
    e.creationObserved('ns/rs', 6);
    assert.equal(e.satisfied('ns/rs'), false);
    clock.advance(EXPECTATIONS_TIMEOUT_MS);
    assert.equal(e.satisfied('ns/rs'), false, 'not before the timeout has passed');
    clock.advance(1);
    assert.equal(e.satisfied('ns/rs'), true);
  });

  it('forgets a key whose controller is gone', () => {
    const e = new Expectations(new FakeClock());
    e.expect('ns/rs', 3);
    e.forget('ns/rs');
    assert.equal(e.satisfied('ns/rs'), true);
  });
});
