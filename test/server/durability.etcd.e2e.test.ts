// Acknowledged writes survive kill -9 of a server over etcd (the etcd member keeps running).
import { durabilitySuite } from './durability.suite.js';

durabilitySuite('etcd');
