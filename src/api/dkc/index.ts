// The dkc.io API: the kinds dkc adds to Kubernetes, their constants and their validation. Pure, like the rest of
// src/api.

export * from './identity.js';
export * from './nodeconfig.js';
export * from './policy.js';
export * from './rollout.js';
export * from './validation.js';
export * from './channel.js';
