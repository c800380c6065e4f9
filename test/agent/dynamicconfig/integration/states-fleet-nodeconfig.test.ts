// The state table (states.suite.ts) on a simulated node of a fleet, on the NodeConfig channel: the same cases and
// observations as on a real agent process and on the Node channel.

import { stateTableSuite } from './states.suite.js';

stateTableSuite('simulated node of a fleet', 'fleet', 'nodeconfig');
