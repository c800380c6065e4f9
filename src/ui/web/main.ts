// The page's entry: renders the app into <div id="app">.

import { html } from 'htm/preact';
import { render } from 'preact';
import { App } from './app.js';

const root = document.getElementById('app')!;
// The static "Loading…" is for the moment before this script runs; preact would otherwise render beside it.
root.replaceChildren();
render(html`<${App} />`, root);
