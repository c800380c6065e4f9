// The API server's REST semantics on the default SQLite store (the suite itself is in api.suite.ts).
import { apiSuite } from './api.suite.js';

apiSuite('sqlite');
