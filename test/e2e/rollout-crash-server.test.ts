// kill -9 of `dkc server`, the rollout controller inside, mid-rollout (the suite is in rollout-crash.suite.ts).
import { rolloutCrashSuite } from './rollout-crash.suite.js';

rolloutCrashSuite('server');
