// What NodeConfigPolicy admission says beyond the verdict's own words (src/nodepolicy/messages.ts): its log line
// when a node's running config cannot be read, and the refusal of a write to the config-flags annotation.

export const messages = {
  configzFallback: (node: string, why: string): string =>
    `NodeConfigPolicy: node ${JSON.stringify(node)} runs its local config and its /configz did not answer (${why}); comparing against the defaults`,
  flagsAnnotation: (node: string, annotation: string): string =>
    `only node ${JSON.stringify(node)} may set the annotation ${annotation} on its Node`,
};
