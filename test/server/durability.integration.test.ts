// Acknowledged writes survive kill -9 of the server, on SQLite (the suite is in durability.suite.ts).
import { durabilitySuite } from './durability.suite.js';

durabilitySuite('sqlite');
