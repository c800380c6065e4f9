// Many simulated nodes in one process, each running the agent's own code (see fleet.ts).

export { startFleet, type Fleet, type FleetOptions, type FleetStats } from './fleet.js';
export { SimulatedNode, type NodeEvent } from './node.js';
export { nodeAddress, nodeName, fleetMembers, type FleetMember } from './addresses.js';
export { type FleetProgress } from './progress.js';
export { FleetError, type FleetErrorCode } from './errors.js';
