// The state table (states.suite.ts) on a real agent process under dkc's supervisor, on the NodeConfig channel: the
// same statuses, metrics, events and restarts as on the Node channel, read from the node's NodeConfig.

import { stateTableSuite } from './states.suite.js';

stateTableSuite('agent process', 'process', 'nodeconfig');
