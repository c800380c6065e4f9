// A warning, never a refusal, for a NodeConfigRollout that names a ConfigMap (spec.configSource, spec.layers[i])
// outside dkc's config namespace. dkc server's Node authorizer lets a node read the ConfigMap it is assigned wherever
// it lives, but a real cluster's nodes are granted ConfigMaps in that one namespace only (deploy/node-daemon/rbac.yaml)
// so that they cannot read kube-system's: a rollout written against dkc server that names one elsewhere would leave
// every node of a real cluster unable to download its config. Warned on create, and on an update for the references
// it adds (a status write or a pause names nothing new).

import { CONFIG_NAMESPACE } from '../../api/dkc/identity.js';
import { GROUP, type NodeConfigRollout } from '../../api/dkc/rollout.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../authz.js';
import type { ConfigChannel } from '../../api/dkc/channel.js';
import { messages } from './messages.js';

interface Named {
  field: string;
  namespace: string;
  name: string;
}

/** Every ConfigMap a rollout's spec names, with the field that names it. */
export function namedConfigMaps(r: NodeConfigRollout | undefined): Named[] {
  const out: Named[] = [];
  const cm = r?.spec?.configSource?.configMap;
  if (cm) out.push({ field: 'spec.configSource.configMap', namespace: cm.namespace ?? '', name: cm.name ?? '' });
  (r?.spec?.layers ?? []).forEach((l, i) => {
    const c = l?.configMap;
    if (c) out.push({ field: `spec.layers[${i}].configMap`, namespace: c.namespace ?? '', name: c.name ?? '' });
  });
  return out;
}

/** The warnings a write of `a` earns: one per ConfigMap it newly names outside the config namespace. */
export function configNamespaceWarnings(a: AdmissionAttributes): string[] {
  if (a.resource.group !== GROUP || a.resource.plural !== 'nodeconfigrollouts' || a.subresource !== '') return [];
  if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return [];
  const before = new Set(
    a.operation === 'UPDATE'
      ? namedConfigMaps(a.oldObject as NodeConfigRollout).map((n) => `${n.namespace}/${n.name}`)
      : [],
  );
  return namedConfigMaps(a.object as NodeConfigRollout)
    .filter((n) => n.namespace !== CONFIG_NAMESPACE && !before.has(`${n.namespace}/${n.name}`))
    .map((n) => messages.outsideConfigNamespace(n.field, n.namespace, n.name, CONFIG_NAMESPACE));
}

/**
 * The plugin, for a server that assigns on `channel`. Only on the NodeConfig channel — the server of a release that
 * drops Node.spec.configSource, as the real clusters deploy/ is for — is the warning true: there the rollout's
 * manifests are the ones a real cluster gets. Where the server keeps the Node's fields (upstream's world, whose
 * tutorial keeps its configs in kube-system), a node reads what it is assigned anywhere, and nothing is said.
 */
export function rolloutConfigNamespace(channel: ConfigChannel = 'node'): AdmissionPlugin {
  return {
    name: 'RolloutConfigNamespace',
    validate(a) {
      if (channel !== 'nodeconfig') return;
      const found = configNamespaceWarnings(a);
      if (found.length > 0) (a.warnings ??= []).push(...found);
    },
  };
}
