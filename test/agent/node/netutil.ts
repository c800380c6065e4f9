// Loopback ports for the agent tests.

export { freePort } from '../../../src/util/net.js';
