// One node: its status.config (its NodeConfig's on that channel), conditions, newest config events, the config it runs (/configz through the API's node
// proxy) and, field by field, how that differs from its assigned ConfigMap (computed by dkc ui with dkc config
// diff's code). The node and its events are watched; /configz and the diff are read again when the node's config
// status changes.

import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import type { Event, Node, NodeConfigSource } from '../../api/types.js';
import type { NodeDiff } from '../model/diff.js';
import { kubeletVersionOf, nodeIssues, sourceTitle } from '../model/fleet.js';
import { configEvents, eventTime } from '../model/node.js';
import { ConnectionLine } from './app.js';
import { getJSON } from '../live/http.js';
import { text } from './text.js';
import { watchAssignedNodes } from '../live/assigned.js';
import { listWatch, type Connection } from '../live/watch.js';
import { useChannel } from './channel.js';

type Loaded<T> = { state: 'loading' } | { state: 'ok'; value: T } | { state: 'failed'; message: string };

/** `local` says what no source means where it has a meaning: an active config of null is the local config. */
function sourceCell(source: NodeConfigSource | null | undefined, local = false): VNode {
  const cm = source?.configMap;
  return html`<td>
    ${source || local ? sourceTitle(source) : text.node.none}${cm?.uid ? html`<br /><small>uid ${cm.uid}, resourceVersion ${cm.resourceVersion ?? ''}</small>` : null}
  </td>`;
}

function ConfigStatus({ node }: { node: Node }): VNode {
  const config = node.status?.config;
  return html`<h3>${text.node.status}</h3>
    <table class="kv">
      <tr>
        <th scope="row">${text.node.kubeletVersion}</th>
        <td data-kubelet-version>${kubeletVersionOf(node) || text.node.none}</td>
      </tr>
      <tr>
        <th scope="row">${text.node.assigned}</th>
        ${sourceCell(config?.assigned)}
      </tr>
      <tr>
        <th scope="row">${text.node.active}</th>
        ${sourceCell(config?.active, true)}
      </tr>
      <tr>
        <th scope="row">${text.node.lastKnownGood}</th>
        ${sourceCell(config?.lastKnownGood)}
      </tr>
      <tr>
        <th scope="row">${text.node.error}</th>
        <td class=${config?.error ? 'error-text' : ''} data-config-error>${config?.error || text.node.none}</td>
      </tr>
    </table>
    <ul class="issues">
      ${nodeIssues(node).map((i) => html`<li><span class=${`badge badge-${i.kind}`}>${i.label}</span> ${i.reason}</li>`)}
    </ul>`;
}

function Conditions({ node }: { node: Node }): VNode {
  const c = text.node.condition;
  return html`<h3>${text.node.conditions}</h3>
    <table>
      <thead>
        <tr>
          <th scope="col">${c.type}</th>
          <th scope="col">${c.status}</th>
          <th scope="col">${c.reason}</th>
          <th scope="col">${c.message}</th>
        </tr>
      </thead>
      <tbody>
        ${(node.status?.conditions ?? []).map(
          (x) =>
            html`<tr>
              <td>${x.type}</td>
              <td>${x.status}</td>
              <td>${x.reason ?? ''}</td>
              <td>${x.message ?? ''}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function Events({ events }: { events: ReadonlyMap<string, Event> }): VNode {
  const newest = configEvents(events.values());
  return html`<h3>${text.node.events}</h3>
    ${
      newest.length === 0
        ? html`<p>${text.node.noEvents}</p>`
        : html`<ul class="events">
            ${newest.map((e) => html`<li><time>${eventTime(e)}</time> <strong>${e.reason}</strong> ${e.message}</li>`)}
          </ul>`
    }`;
}

function Diff({ diff }: { diff: Loaded<NodeDiff> }): VNode {
  if (diff.state !== 'ok')
    return html`<h3>${text.node.diff}</h3>
      <p class=${diff.state === 'failed' ? 'error-text' : ''}>
        ${diff.state === 'failed' ? diff.message : text.node.loading}
      </p>`;
  const d = diff.value;
  return html`<h3>${text.node.diff}</h3>
    ${d.note ? html`<p>${d.note}</p>` : null}
    ${d.assigned ? html`<p><code>${text.node.diffHead(d.running, d.assigned)}</code></p>` : null}
    ${d.assigned && d.changes.length === 0 ? html`<p>${text.node.noDiff}</p>` : null}
    <ul class="diff">
      ${d.changes.map(
        (c) =>
          html`<li>
            ${c.running !== undefined ? html`<div class="del"><span aria-hidden="true">- </span>${c.path}: ${c.running}</div>` : null}
            ${c.assigned !== undefined ? html`<div class="add"><span aria-hidden="true">+ </span>${c.path}: ${c.assigned}</div>` : null}
          </li>`,
      )}
    </ul>`;
}

/** Reads `path` again whenever `key` changes. */
function useFetched<T>(path: string, key: string | undefined): Loaded<T> {
  const [value, setValue] = useState<Loaded<T>>({ state: 'loading' });
  useEffect(() => {
    if (key === undefined) return;
    const abort = new AbortController();
    getJSON<T>(path, abort.signal).then(
      (v) => setValue({ state: 'ok', value: v }),
      (err: Error) => !abort.signal.aborted && setValue({ state: 'failed', message: err.message }),
    );
    return () => abort.abort();
  }, [path, key]);
  return value;
}

export function NodePage({ name }: { name: string }): VNode {
  const [node, setNode] = useState<Node | null | undefined>(undefined);
  const [events, setEvents] = useState<{ items: ReadonlyMap<string, Event> }>({ items: new Map() });
  const [connection, setConnection] = useState<Connection>({ state: 'connecting' });
  const channel = useChannel();
  useEffect(() => {
    if (channel === undefined) return undefined;
    const byName = { fieldSelector: `metadata.name=${name}` };
    return watchAssignedNodes(channel, byName, byName, {
      items: (m) => setNode([...m.values()][0] ?? null),
      connection: setConnection,
    });
  }, [name, channel]);
  useEffect(
    () =>
      listWatch<Event>(
        '/api/v1/events',
        { fieldSelector: `involvedObject.kind=Node,involvedObject.name=${name}` },
        { items: (items) => setEvents({ items }), connection: () => undefined },
      ),
    [name],
  );
  // /configz and the diff change when the node's config status does (a restart on a new config, a new assignment).
  const configKey = node ? JSON.stringify([node.spec?.configSource, node.status?.config]) : undefined;
  const configz = useFetched<{ kubeletconfig?: unknown }>(
    `/api/v1/nodes/${encodeURIComponent(name)}/proxy/configz`,
    configKey,
  );
  const diff = useFetched<NodeDiff>(`/ui/nodes/${encodeURIComponent(name)}/diff`, configKey);
  return html`<section class="node-page">
    <p><a href="#/">${text.node.back}</a></p>
    <h2>${text.node.heading(name)}</h2>
    <${ConnectionLine} connection=${connection} />
    ${node === null ? html`<p role="alert">${text.node.notFound(name)}</p>` : null}
    ${
      node
        ? html`<${ConfigStatus} node=${node} /><${Conditions} node=${node} /><${Events}
              events=${events.items}
            /><${Diff} diff=${diff} />
            <h3>${text.node.effective}</h3>
            ${configz.state === 'ok' ? html`<pre class="configz" tabindex="0">${JSON.stringify(configz.value.kubeletconfig, null, 2)}</pre>` : html`<p class=${configz.state === 'failed' ? 'error-text' : ''}>${configz.state === 'failed' ? configz.message : text.node.loading}</p>`}`
        : null
    }
  </section>`;
}
