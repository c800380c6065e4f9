// Custom objects stored by older servers, migrated at start, on SQLite (the suite is in migration.suite.ts).
import { migrationSuite } from './migration.suite.js';

migrationSuite('sqlite');
