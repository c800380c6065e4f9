// The page's frame: hash routes (#/, #/nodes/NAME, #/rollouts), the navigation, and the live-connection line.

import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { VNode } from 'preact';
import { FleetPage } from './fleet-page.js';
import { NodePage } from './node-page.js';
import { RolloutsPage } from './rollouts-page.js';
import { text } from './text.js';
import type { Connection } from '../live/watch.js';

type Route = { page: 'fleet' } | { page: 'node'; name: string } | { page: 'rollouts' };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  const node = /^\/nodes\/([^/]+)$/.exec(path);
  if (node) return { page: 'node', name: decodeURIComponent(node[1]!) };
  if (path === '/rollouts') return { page: 'rollouts' };
  return { page: 'fleet' };
}

export function ConnectionLine({ connection }: { connection: Connection }): VNode {
  const words =
    connection.state === 'live'
      ? text.live.live
      : connection.state === 'connecting'
        ? text.live.connecting
        : text.live.reconnecting(connection.why);
  return html`<p class=${`connection ${connection.state}`} role="status" data-connection=${connection.state}>
    ${words}
  </p>`;
}

export function App(): VNode {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onHash = (): void => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const current = (page: Route['page']): 'page' | undefined => (route.page === page ? 'page' : undefined);
  return html`
    <header>
      <h1>dkc</h1>
      <nav aria-label=${text.nav.label}>
        <a href="#/" aria-current=${current('fleet')}>${text.nav.fleet}</a>
        <a href="#/rollouts" aria-current=${current('rollouts')}>${text.nav.rollouts}</a>
      </nav>
    </header>
    <main>
      ${route.page === 'fleet' ? html`<${FleetPage} />` : route.page === 'rollouts' ? html`<${RolloutsPage} />` : html`<${NodePage} key=${route.name} name=${route.name} />`}
    </main>
  `;
}
