// Real kubectl against a real `dkc server` over etcd: the same checks as on SQLite.
import { kubectlSuite } from './kubectl.suite.js';

kubectlSuite('etcd');
