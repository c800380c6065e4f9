// An apps/v1 workload as a test creates it: kind and name, the `app` label its selector and template share, a
// one-container template, and whatever else of the spec the test says.

export const podTemplate = (app: string, image = 'pause') => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'c', image }] },
});

export function appsObject(kind: string, name: string, app: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name },
    spec: { selector: { matchLabels: { app } }, template: podTemplate(app), ...spec },
  };
}
