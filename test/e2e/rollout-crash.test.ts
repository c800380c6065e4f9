// kill -9 of the standalone `dkc controller` mid-rollout (the suite is in rollout-crash.suite.ts).
import { rolloutCrashSuite } from './rollout-crash.suite.js';

rolloutCrashSuite('controller');
