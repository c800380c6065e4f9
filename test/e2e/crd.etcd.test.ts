// CustomResourceDefinitions with real kubectl against a real `dkc server` over etcd: the same checks as on SQLite.
import { crdSuite } from './crd.suite.js';

crdSuite('etcd');
