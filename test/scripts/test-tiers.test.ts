// The three test commands (npm run test:unit, test:integration, test:e2e) pick their files by path alone
// (scripts/test-tiers.mjs). These tests hold the tree to that rule: a unit test starts no process that needs more than
// Node (no dkc server or agent, no kubectl, no etcd, no browser, no Prometheus), and an integration test needs no
// program beyond Node.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

type Tier = 'unit' | 'integration' | 'e2e';
// The script is plain JavaScript outside the TypeScript build; a computed specifier keeps tsc from resolving it.
const tiers = (await import(new URL('../../../scripts/test-tiers.mjs', import.meta.url).href)) as {
  tierOf(file: string): Tier;
};

/** What a module needs, for the modules and packages that start processes: the tiers they are allowed in. */
const NEEDS: Record<string, { why: string; allowed: readonly Tier[] }> = {
  'test/helpers/server.ts': { why: 'starts a dkc server', allowed: ['integration', 'e2e'] },
  'test/helpers/dkc.ts': { why: 'runs bin/dkc', allowed: ['integration', 'e2e'] },
  'test/agent/dynamicconfig/integration/harness.ts': { why: 'starts a dkc cluster', allowed: ['integration', 'e2e'] },
  'test/helpers/kubectl.ts': { why: 'runs kubectl', allowed: ['e2e'] },
  'test/helpers/replicas.ts': { why: 'runs nginx in front of dkc servers', allowed: ['e2e'] },
  'test/deploy/promconfig.ts': { why: 'runs promtool', allowed: ['e2e'] },
  'test/deploy/vmagent.ts': { why: 'runs vmagent and Prometheus', allowed: ['e2e'] },
  'puppeteer-core': { why: 'drives a browser', allowed: ['e2e'] },
};
/** test/helpers/etcd.ts is reached through server.ts by every test that starts a server, and starts etcd only when asked. */
const DIRECT_ONLY: Record<string, { why: string; allowed: readonly Tier[] }> = {
  'test/helpers/etcd.ts': { why: 'starts etcd', allowed: ['e2e'] },
};
/** Names whose use means a dkc process: importing them from anywhere under src/ is not for a unit test. */
const DKC_PROCESS_NAMES = ['dkcBin', 'startCluster'];
/** A path to bin/dkc spelled out in a test (one string, or two given to join); the pattern does not match itself. */
const BIN_DKC = /['"]bin[/]dkc['"]|'bin', *'dkc'/;

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) testFiles(p, out);
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const an = (tier: Tier) => (tier === 'unit' ? 'a unit' : `an ${tier}`);
const rel = (p: string) => relative(repoRoot, p).split(sep).join('/');

/** The static and dynamic imports of a TypeScript file: repository paths (relative specifiers) and package names. */
function importsOf(file: string): { modules: string[]; names: string[] } {
  const text = readFileSync(file, 'utf8');
  const modules: string[] = [];
  const names: string[] = [];
  for (const m of text.matchAll(/\bimport\s*(?:type\s+)?(?:([\w*\s{},]*?)\s*from\s*)?\(?\s*'([^']+)'/g)) {
    const [, clause = '', spec = ''] = m;
    if (/^\s*type\s/.test(m[0].slice(6))) continue; // erased at compile time
    if (spec.startsWith('.')) {
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      modules.push(existsSync(target) ? rel(target) : rel(resolve(dirname(file), spec)));
      if (rel(target).startsWith('src/'))
        names.push(...clause.split(/[\s{},]+/).filter((n) => DKC_PROCESS_NAMES.includes(n)));
    } else modules.push(spec);
  }
  return { modules, names };
}

/** Every module a test file reaches through test/ helpers, each with the chain of imports that leads to it. */
function reach(file: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[rel(file), [rel(file)]]]);
  const queue = [rel(file)];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (!at.startsWith('test/') || !at.endsWith('.ts')) continue;
    for (const m of importsOf(join(repoRoot, at)).modules) {
      if (chains.has(m)) continue;
      chains.set(m, [...chains.get(at)!, m]);
      queue.push(m);
    }
  }
  return chains;
}

/** What keeps `file` out of `tier`: one line per reason, naming the import chain. */
function violations(file: string, tier: Tier): string[] {
  const out: string[] = [];
  const chains = reach(file);
  for (const [module, need] of Object.entries(NEEDS)) {
    const chain = chains.get(module);
    if (chain && !need.allowed.includes(tier))
      out.push(`${rel(file)} is ${an(tier)} test but ${need.why}: ${chain.join(' -> ')}`);
  }
  const direct = importsOf(file);
  for (const [module, need] of Object.entries(DIRECT_ONLY)) {
    if (direct.modules.includes(module) && !need.allowed.includes(tier))
      out.push(`${rel(file)} is ${an(tier)} test but ${need.why}: it imports ${module}`);
  }
  if (tier === 'unit') {
    for (const name of direct.names)
      out.push(`${rel(file)} is a unit test but imports ${name}, which runs dkc processes`);
    if (BIN_DKC.test(readFileSync(file, 'utf8'))) out.push(`${rel(file)} is a unit test but runs bin/dkc`);
  }
  return out;
}

describe('test tiers', () => {
  it('a file is in the tier its path says', () => {
    assert.equal(tiers.tierOf('test/server/patch/jsonpatch.test.ts'), 'unit');
    assert.equal(tiers.tierOf('dist/test/server/patch/jsonpatch.test.js'), 'unit');
    assert.equal(tiers.tierOf('test/e2e/tutorial.test.ts'), 'e2e');
    assert.equal(tiers.tierOf('test/ui/browser.e2e.test.ts'), 'e2e');
    assert.equal(tiers.tierOf('dist\\test\\e2e\\up.test.js'), 'e2e');
    assert.equal(tiers.tierOf('test/agent/dynamicconfig/integration/states.test.ts'), 'integration');
    assert.equal(tiers.tierOf('test/controllers/nodelifecycle/integration.test.ts'), 'integration');
    assert.equal(tiers.tierOf('test/server/hardening.integration.test.ts'), 'integration');
    assert.equal(tiers.tierOf('test/server/api.etcd.e2e.test.ts'), 'e2e');
    assert.equal(tiers.tierOf('test/e2e/integration/x.test.ts'), 'e2e', 'e2e wins over integration');
    assert.equal(
      tiers.tierOf('test/server/reintegration.test.ts'),
      'unit',
      'a word that merely contains the tier is not one',
    );
  });

  it('a file that reaches a process-starting helper is named for a tier that allows it', () => {
    assert.deepEqual(violations(join(repoRoot, 'test/server/hardening.integration.test.ts'), 'unit').length > 0, true);
    assert.deepEqual(violations(join(repoRoot, 'test/server/hardening.integration.test.ts'), 'integration'), []);
    assert.match(
      violations(join(repoRoot, 'test/server/finalizers.e2e.test.ts'), 'integration').join('\n'),
      /runs kubectl: test\/server\/finalizers\.e2e\.test\.ts -> test\/helpers\/kubectl\.ts/,
    );
    assert.match(
      violations(join(repoRoot, 'test/fleet/lifecycle.integration.test.ts'), 'unit').join('\n'),
      /imports startCluster/,
    );
  });

  it('no test file is in a tier its imports do not allow', () => {
    const found = testFiles(join(repoRoot, 'test')).flatMap((f) => violations(f, tiers.tierOf(rel(f))));
    assert.deepEqual(
      found,
      [],
      `rename these (name.integration.test.ts or name.e2e.test.ts), or move them under integration/ or e2e/:\n${found.join('\n')}`,
    );
  });
});
