// Names and addresses of a fleet's nodes. Every simulated node gets a loopback address of its own (127.0.0.0/8 is all
// loopback on Linux) as its InternalIP, and the fleet's one listener tells the nodes apart by the address a connection
// arrived on, so the API server's node proxy reaches each node exactly as it reaches a real kubelet. Pure.

import { FleetError, messages } from './errors.js';

/** The first fleet address is 127.1.0.1: 127.0.0.0/16 is left to everything else that uses loopback. */
const FIRST = (127 << 24) | (1 << 16);
const LAST = (127 << 24) | 0xfffffe;

/** The loopback address of the node numbered `index` (1-based). */
export function nodeAddress(index: number): string {
  const n = FIRST + index;
  if (!Number.isInteger(index) || index < 1 || n > LAST)
    throw new FleetError('DKC_FLEET_INVALID_OPTION', messages.tooManyNodes(index));
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** `<prefix><index>`, e.g. sim-1. */
export function nodeName(prefix: string, index: number): string {
  return `${prefix}${index}`;
}

/** Whether `prefix` followed by digits makes a valid node name (an RFC 1123 subdomain starting with a letter or digit). */
export function validPrefix(prefix: string): boolean {
  return /^[a-z0-9]([-a-z0-9.]*[-a-z0-9.])?$/.test(prefix) || prefix === '';
}

export interface FleetMember {
  index: number;
  name: string;
  address: string;
}

/** The members numbered first … first+count-1. */
export function fleetMembers(prefix: string, first: number, count: number): FleetMember[] {
  if (count > 0) nodeAddress(first + count - 1);
  return Array.from({ length: count }, (_, i) => ({
    index: first + i,
    name: nodeName(prefix, first + i),
    address: nodeAddress(first + i),
  }));
}
