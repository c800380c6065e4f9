// The dkc.io API: the kinds dkc adds to Kubernetes, their constants and their validation. Pure, like the rest of
// src/api.

export * from './nodeconfig.js';
export * from './validation.js';
