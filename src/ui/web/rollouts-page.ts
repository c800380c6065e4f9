// Every NodeConfigRollout: its phase, a progress bar per batch, its failures with node and message, the nodes left
// out for their kubelet version, and the buttons of `dkc rollout pause|resume|undo`, which dkc ui's server carries
// out with dkc rollout's own code and the user's credentials; a refusal (403 and the like) is shown in the API
// server's words.

import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import type { NodeConfigRollout } from '../../workflow/rollout/types.js';
import { SPEC_CHANGES, type SpecCommand } from '../../workflow/rollout/changes.js';
import { ROLLOUTS_PATH } from '../../api/dkc/rollout.js';
import { availableActions, batchProgress, leftOut, pendingNodes } from '../model/rollout.js';
import { ConnectionLine } from './app.js';
import { postJSON } from '../live/http.js';
import { text } from './text.js';
import { listWatch, type Connection } from '../live/watch.js';

function Batches({ rollout }: { rollout: NodeConfigRollout }): VNode {
  const pending = pendingNodes(rollout.status);
  return html`<ol class="batches">
    ${batchProgress(rollout.status).map((b) => {
      const id = `batch-${rollout.metadata.name}-${b.batch}`;
      return html`<li data-batch=${b.batch}>
        <span id=${id}>${text.rollouts.batch(b.batch)}</span>
        <progress max=${b.total} value=${b.succeeded} aria-labelledby=${id}></progress>
        <span class="batch-text">${text.rollouts.batchText(b.succeeded, b.total, b.failed, b.inFlight)}</span>
      </li>`;
    })}
    ${pending > 0 ? html`<li class="pending">${text.rollouts.pending(pending)}</li>` : null}
  </ol>`;
}

/** The selected nodes the controller left out because their kubelet version cannot run the config. */
function LeftOut({ rollout }: { rollout: NodeConfigRollout }): VNode | null {
  const groups = leftOut(rollout.status);
  if (groups.length === 0) return null;
  const count = groups.reduce((n, g) => n + g.nodes.length, 0);
  return html`<h4>${text.rollouts.leftOut(count)}</h4>
    <ul class="incompatible" data-incompatible=${count}>
      ${groups.map(
        (g) =>
          html`<li data-kubelet-version=${g.kubeletVersion}>
            <strong>${text.rollouts.leftOutGroup(g.kubeletVersion, g.reason)}</strong> ${g.nodes.join(', ')}
          </li>`,
      )}
    </ul>`;
}

function RolloutCard({ rollout }: { rollout: NodeConfigRollout }): VNode {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const name = rollout.metadata.name;
  const status = rollout.status;
  const paused = rollout.spec.paused === true;
  const can = availableActions(status?.phase, paused);
  const act = (action: SpecCommand): void => {
    setBusy(true);
    postJSON(`/ui/rollouts/${encodeURIComponent(name)}/${action}`)
      .then(
        () => setMessage({ ok: true, text: text.rollouts.done(name, SPEC_CHANGES[action][1]) }),
        (err: Error) => setMessage({ ok: false, text: text.rollouts.refused(err.message) }),
      )
      .finally(() => setBusy(false));
  };
  const cm = rollout.spec.configSource?.configMap;
  const failures = status?.failures ?? [];
  return html`<article
    class="rollout"
    data-rollout=${name}
    data-phase=${status?.phase ?? ''}
    aria-labelledby=${`rollout-${name}`}
  >
    <h3 id=${`rollout-${name}`}>${name}</h3>
    <p>
      <span class=${`badge phase-${(status?.phase ?? 'Pending').toLowerCase()}`}
        >${text.rollouts.phase}: ${status?.phase ?? 'Pending'}</span
      >
      ${paused ? html` <span class="badge badge-paused">${text.rollouts.paused}</span>` : null}
      ${cm ? html` ${text.rollouts.source} <code>${cm.namespace}/${cm.name}:${cm.kubeletConfigKey}</code>` : null}
    </p>
    <p>${text.rollouts.nodes(status?.targetNodes ?? 0, status?.succeededNodes ?? 0, status?.failedNodes ?? 0)}</p>
    <${Batches} rollout=${rollout} />
    ${
      failures.length > 0
        ? html`<h4>${text.rollouts.failures}</h4>
            <ul class="failures">
              ${failures.map((f) => html`<li><strong>${f.node}</strong> ${f.reason ? html`(${f.reason})` : null}: ${f.message}</li>`)}
            </ul>`
        : null
    }
    <${LeftOut} rollout=${rollout} />
    <div class="actions">
      <button type="button" disabled=${busy || !can.pause} onClick=${() => act('pause')}>${text.rollouts.pause}</button>
      <button type="button" disabled=${busy || !can.resume} onClick=${() => act('resume')}>
        ${text.rollouts.resume}
      </button>
      <button type="button" disabled=${busy || !can.undo} onClick=${() => act('undo')}>${text.rollouts.undo}</button>
    </div>
    ${message ? html`<p class=${message.ok ? 'done' : 'error-text'} role=${message.ok ? 'status' : 'alert'}>${message.text}</p>` : null}
  </article>`;
}

export function RolloutsPage(): VNode {
  const [rollouts, setRollouts] = useState<{ items: ReadonlyMap<string, NodeConfigRollout> }>({ items: new Map() });
  const [connection, setConnection] = useState<Connection>({ state: 'connecting' });
  useEffect(
    () =>
      listWatch<NodeConfigRollout>(
        ROLLOUTS_PATH,
        {},
        { items: (items) => setRollouts({ items }), connection: setConnection },
      ),
    [],
  );
  const list = [...rollouts.items.values()].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  return html`<section class="rollouts">
    <h2>${text.rollouts.heading}</h2>
    <${ConnectionLine} connection=${connection} />
    ${list.length === 0 ? html`<p>${text.rollouts.empty}</p>` : list.map((r) => html`<${RolloutCard} key=${r.metadata.name} rollout=${r} />`)}
  </section>`;
}
