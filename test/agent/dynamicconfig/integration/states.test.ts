// The state table (states.suite.ts) on a real agent process under dkc's supervisor.

import { stateTableSuite } from './states.suite.js';

stateTableSuite('agent process', 'process');
