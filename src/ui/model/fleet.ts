// The fleet page's decisions, pure so that they are tested without a browser: which config a node actually runs
// (the group it belongs to), what about it needs an operator's attention and why, and the state filter. Nodes are
// grouped by their ACTIVE config (status.config.active: ConfigMap name, uid and resourceVersion), because that is
// what runs; assigned ≠ active is one of the problems a node shows, with both sides named.

import type { Node, NodeConfigSource } from '../../api/types.js';
import { issueLabels, sourceText, stateFilterLabels } from './text.js';

export type IssueKind = keyof typeof issueLabels;

export interface NodeIssue {
  kind: IssueKind;
  /** The short word shown on the node's row. */
  label: string;
  /** Why, in the API's own words where it has them (status.config.error, the Ready condition's reason and message). */
  reason: string;
}

export interface NodeView {
  name: string;
  node: Node;
  /** What the node reports in status.nodeInfo.kubeletVersion (`v1.30.0`); '' when it reports none. */
  kubeletVersion: string;
  groupKey: string;
  issues: NodeIssue[];
}

export interface ConfigGroup {
  key: string;
  /** The ConfigMap's namespace/name:key, or the local config. */
  title: string;
  uid?: string;
  resourceVersion?: string;
  nodes: NodeView[];
  /** How many of the group's nodes have each kind of issue. */
  counts: Record<IssueKind, number>;
}

export type StateFilter = keyof typeof stateFilterLabels;

export const STATE_FILTERS = Object.keys(stateFilterLabels) as StateFilter[];

export const LOCAL_GROUP = 'local';

/** One source's identity for grouping: which ConfigMap, which key, which uid and resourceVersion. */
export function sourceKey(source: NodeConfigSource | null | undefined): string {
  const cm = source?.configMap;
  if (cm) return `cm:${cm.namespace}/${cm.name}:${cm.kubeletConfigKey}@${cm.uid ?? ''}/${cm.resourceVersion ?? ''}`;
  const ref = source?.configMapRef;
  if (ref) return `ref:${ref.namespace ?? ''}/${ref.name ?? ''}@${ref.uid ?? ''}`;
  return LOCAL_GROUP;
}

/** The source as people name it, without uid and resourceVersion. */
export function sourceTitle(source: NodeConfigSource | null | undefined): string {
  const cm = source?.configMap;
  if (cm) return sourceText.configMap(cm.namespace, cm.name, cm.kubeletConfigKey);
  const ref = source?.configMapRef;
  if (ref) return sourceText.legacy(ref.namespace ?? '', ref.name ?? '');
  return sourceText.local;
}

/** Which ConfigMap and key (not which version): what spec.configSource names. */
function sourceName(source: NodeConfigSource | null | undefined): string {
  return source?.configMap || source?.configMapRef ? sourceTitle(source) : LOCAL_GROUP;
}

/**
 * Assigned ≠ active: spec.configSource names another ConfigMap than the one running, or the node has downloaded a
 * newer version of it (status.config.assigned's uid/resourceVersion) that it does not run yet.
 */
function notActiveReason(node: Node): string | undefined {
  const spec = node.spec?.configSource;
  const status = node.status?.config;
  const active = status?.active;
  if (sourceName(spec) !== sourceName(active)) return sourceText.notActive(sourceTitle(spec), sourceTitle(active));
  const assigned = status?.assigned;
  if (assigned && sourceName(assigned) === sourceName(active) && sourceKey(assigned) !== sourceKey(active)) {
    return sourceText.notActive(versionText(assigned), versionText(active));
  }
  return undefined;
}

function versionText(source: NodeConfigSource | null | undefined): string {
  const cm = source?.configMap;
  return cm ? `${sourceTitle(source)} resourceVersion ${cm.resourceVersion ?? '?'}` : sourceTitle(source);
}

function readyIssue(node: Node): NodeIssue | undefined {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready) return { kind: 'unknown', label: issueLabels.unknown, reason: sourceText.noReadyCondition };
  if (ready.status === 'True') return undefined;
  const reason = [ready.reason, ready.message].filter((s) => s).join(': ');
  return ready.status === 'False'
    ? { kind: 'not-ready', label: issueLabels['not-ready'], reason }
    : { kind: 'unknown', label: issueLabels.unknown, reason };
}

/** What needs attention about a node, most severe first. */
export function nodeIssues(node: Node): NodeIssue[] {
  const out: NodeIssue[] = [];
  const error = node.status?.config?.error;
  if (error) out.push({ kind: 'error', label: issueLabels.error, reason: error });
  const ready = readyIssue(node);
  if (ready) out.push(ready);
  const drift = notActiveReason(node);
  if (drift) out.push({ kind: 'not-active', label: issueLabels['not-active'], reason: drift });
  return out;
}

/** The kubelet version a node reports, as it reports it; '' for none. */
export function kubeletVersionOf(node: Node): string {
  const v = node.status?.nodeInfo?.kubeletVersion;
  return typeof v === 'string' ? v : '';
}

export function nodeView(node: Node): NodeView {
  return {
    name: node.metadata.name ?? '',
    node,
    kubeletVersion: kubeletVersionOf(node),
    groupKey: sourceKey(node.status?.config?.active),
    issues: nodeIssues(node),
  };
}

export function matchesState(view: NodeView, filter: StateFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'attention':
      return view.issues.length > 0;
    case 'not-ready':
      return view.issues.some((i) => i.kind === 'not-ready' || i.kind === 'unknown');
    default:
      return view.issues.some((i) => i.kind === filter);
  }
}

const zeroCounts = (): Record<IssueKind, number> => ({ 'not-active': 0, error: 0, 'not-ready': 0, unknown: 0 });

/** Groups by active config, the local config first, then by title and resourceVersion; nodes by name. */
export function groupNodes(nodes: Iterable<Node>, filter: StateFilter = 'all'): ConfigGroup[] {
  const groups = new Map<string, ConfigGroup>();
  for (const node of nodes) {
    const view = nodeView(node);
    if (!matchesState(view, filter)) continue;
    let group = groups.get(view.groupKey);
    if (!group) {
      const active = node.status?.config?.active;
      group = { key: view.groupKey, title: sourceTitle(active), nodes: [], counts: zeroCounts() };
      const cm = active?.configMap;
      if (cm?.uid) group.uid = cm.uid;
      if (cm?.resourceVersion) group.resourceVersion = cm.resourceVersion;
      else if (active?.configMapRef?.uid) group.uid = active.configMapRef.uid;
      groups.set(view.groupKey, group);
    }
    group.nodes.push(view);
    for (const issue of view.issues) group.counts[issue.kind]++;
  }
  const list = [...groups.values()];
  for (const g of list) g.nodes.sort((a, b) => compare(a.name, b.name));
  return list.sort(compareGroups);
}

function compareGroups(a: ConfigGroup, b: ConfigGroup): number {
  if (a.key === LOCAL_GROUP || b.key === LOCAL_GROUP)
    return a.key === LOCAL_GROUP ? (b.key === LOCAL_GROUP ? 0 : -1) : 1;
  return (
    compare(a.title, b.title) || compare(a.resourceVersion ?? '', b.resourceVersion ?? '') || compare(a.key, b.key)
  );
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export type FleetRow = { kind: 'group'; group: ConfigGroup } | { kind: 'node'; view: NodeView; group: ConfigGroup };

/** The groups as one list of rows (a header, then its nodes), for the virtualised list. */
export function fleetRows(groups: readonly ConfigGroup[]): FleetRow[] {
  const rows: FleetRow[] = [];
  for (const group of groups) {
    rows.push({ kind: 'group', group });
    for (const view of group.nodes) rows.push({ kind: 'node', view, group });
  }
  return rows;
}
