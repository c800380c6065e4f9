// The API server's REST semantics on etcd: the same suite as on SQLite, against a real single-member etcd.
import { apiSuite } from './api.suite.js';

apiSuite('etcd');
