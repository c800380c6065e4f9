// The fleet: every node (those a label selector matches, filtered by the API server) grouped by the config it runs
// (its status.config, or its NodeConfig's on that channel), with counts, and the nodes needing attention marked with a word and their reason, not only a colour.

import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import type { Node } from '../../api/types.js';
import {
  fleetRows,
  groupNodes,
  STATE_FILTERS,
  type ConfigGroup,
  type FleetRow,
  type IssueKind,
  type NodeView,
  type StateFilter,
} from '../model/fleet.js';
import { issueLabels, stateFilterLabels } from '../model/text.js';
import { ConnectionLine } from './app.js';
import { text } from './text.js';
import { useVirtualList } from './virtual.js';
import { watchAssignedNodes } from '../live/assigned.js';
import type { Connection } from '../live/watch.js';
import { useChannel } from './channel.js';

const GROUP_HEIGHT = 52;
const NODE_HEIGHT = 36;

function GroupHeader({ group }: { group: ConfigGroup }): VNode {
  const issues = Object.entries(group.counts).filter(([, n]) => n > 0);
  return html`<div class="group" role="heading" aria-level="2" data-group=${group.title} data-group-key=${group.key}>
    <span class="group-title">${group.title}</span>
    <span class="group-count">${text.fleet.group(group.nodes.length)}</span>
    ${group.uid ? html`<span class="group-version">${text.fleet.uid(group.uid, group.resourceVersion ?? '')}</span>` : null}
    ${issues.map(([kind, n]) => html`<span class=${`badge badge-${kind}`}>${n} ${issueLabels[kind as IssueKind]}</span>`)}
  </div>`;
}

function NodeRow({ view, group }: { view: NodeView; group: ConfigGroup }): VNode {
  const first = view.issues[0];
  const all = view.issues.map((i) => `${i.label}: ${i.reason}`).join('\n');
  return html`<div
    class=${`node${first ? ' attention' : ''}`}
    data-node=${view.name}
    data-group=${group.title}
    data-issues=${view.issues.map((i) => i.kind).join(' ')}
    title=${all || undefined}
  >
    <a href=${`#/nodes/${encodeURIComponent(view.name)}`}>${view.name}</a>
    <span class="kubelet" data-kubelet-version=${view.kubeletVersion}>${text.fleet.kubelet(view.kubeletVersion)}</span>
    ${view.issues.length === 0 ? html`<span class="badge badge-ok">${text.fleet.ok}</span>` : view.issues.map((i) => html`<span class=${`badge badge-${i.kind}`}>${i.label}</span>`)}
    ${first ? html`<span class="reason">${first.reason}</span>` : null}
  </div>`;
}

function Rows({ rows }: { rows: FleetRow[] }): VNode {
  const scroller = useRef<HTMLDivElement>(null);
  const list = useVirtualList(
    rows.length,
    () => scroller.current,
    (i) => (rows[i]?.kind === 'group' ? GROUP_HEIGHT : NODE_HEIGHT),
  );
  return html`<div class="rows" ref=${scroller} tabindex="0" role="region" aria-label=${text.fleet.list}>
    <div style=${{ height: `${list.totalSize}px`, position: 'relative' }}>
      ${list.items.map((item) => {
        const row = rows[item.index]!;
        const style = {
          position: 'absolute',
          top: 0,
          left: 0,
          right: 0,
          height: `${item.size}px`,
          transform: `translateY(${item.start}px)`,
        };
        return html`<div key=${row.kind === 'group' ? `g:${row.group.key}` : `n:${row.view.name}`} style=${style}>
          ${row.kind === 'group' ? html`<${GroupHeader} group=${row.group} />` : html`<${NodeRow} view=${row.view} group=${row.group} />`}
        </div>`;
      })}
    </div>
  </div>`;
}

export function FleetPage(): VNode {
  const [selector, setSelector] = useState('');
  const [draft, setDraft] = useState('');
  const [filter, setFilter] = useState<StateFilter>('all');
  const [nodes, setNodes] = useState<{ items: ReadonlyMap<string, Node> }>({ items: new Map() });
  const [connection, setConnection] = useState<Connection>({ state: 'connecting' });
  // The map is the watch's own, changed in place: a new wrapper object tells preact it changed.
  const channel = useChannel();
  useEffect(
    () =>
      channel === undefined
        ? undefined
        : watchAssignedNodes(
            channel,
            { labelSelector: selector },
            {},
            { items: (items) => setNodes({ items }), connection: setConnection },
          ),
    [selector, channel],
  );
  const all = useMemo(() => groupNodes(nodes.items.values()), [nodes]);
  const groups = useMemo(() => (filter === 'all' ? all : groupNodes(nodes.items.values(), filter)), [all, filter]);
  const rows = useMemo(() => fleetRows(groups), [groups]);
  const attention = all.reduce((n, g) => n + g.nodes.filter((v) => v.issues.length > 0).length, 0);
  return html`<section class="fleet">
    <h2>${text.fleet.heading}</h2>
    <form class="controls" onSubmit=${(e: Event) => (e.preventDefault(), setSelector(draft.trim()))}>
      <label for="selector">${text.fleet.selector}</label>
      <input
        id="selector"
        name="selector"
        value=${draft}
        placeholder="pool=blue"
        aria-describedby="selector-hint"
        onInput=${(e: Event) => setDraft((e.target as HTMLInputElement).value)}
      />
      <button type="submit">${text.fleet.apply}</button>
      <span id="selector-hint" class="hint">${text.fleet.selectorHint}</span>
      <label for="state">${text.fleet.state}</label>
      <select
        id="state"
        value=${filter}
        onChange=${(e: Event) => setFilter((e.target as HTMLSelectElement).value as StateFilter)}
      >
        ${STATE_FILTERS.map((f) => html`<option value=${f}>${stateFilterLabels[f]}</option>`)}
      </select>
    </form>
    <${ConnectionLine} connection=${connection} />
    <p class="summary" data-summary>${text.fleet.summary(nodes.items.size, all.length, attention)}</p>
    ${rows.length === 0 ? html`<p>${text.fleet.empty}</p>` : html`<${Rows} rows=${rows} />`}
  </section>`;
}
