// CustomResourceDefinitions with real kubectl against a real `dkc server` on SQLite (the suite is in crd.suite.ts).
import { crdSuite } from './crd.suite.js';

crdSuite('sqlite');
