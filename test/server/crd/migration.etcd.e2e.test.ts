// Custom objects stored by older servers, migrated at start, over etcd, also by two replicas at once.
import { migrationSuite } from './migration.suite.js';

migrationSuite('etcd');
