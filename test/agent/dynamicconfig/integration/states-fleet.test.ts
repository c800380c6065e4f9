// The state table (states.suite.ts) on a simulated node of a fleet, restarted in-process: the same cases, the same
// expected status, metrics, events and restarts as on a real agent process.

import { stateTableSuite } from './states.suite.js';

stateTableSuite('simulated node of a fleet', 'fleet');
