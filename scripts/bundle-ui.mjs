// Builds the web view's page (src/ui/web/) into dist/src/ui/web/: app.js (the page's code with preact, htm and
// virtual-core, one ES module), app.css and index.html. `dkc ui` serves exactly these files, so the package ships
// them with the rest of dist/. Called by scripts/bundle.mjs (part of `npm run build`).

import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/ui/web/', import.meta.url));
const out = fileURLToPath(new URL('../dist/src/ui/web/', import.meta.url));

export async function bundleUi() {
  mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [`${src}main.ts`],
    outfile: `${out}app.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: `${src}tsconfig.json`,
  });
  copyFileSync(`${src}index.html`, `${out}index.html`);
  copyFileSync(`${src}style.css`, `${out}app.css`);
}
