// Real kubectl against a real `dkc server` on SQLite (the suite is in kubectl.suite.ts).
import { kubectlSuite } from './kubectl.suite.js';

kubectlSuite('sqlite');
