// The README stays a front door and the documentation stays whole: README.md has at most 160 lines, and every
// relative link or image in README.md and docs/**/*.md names a file (or folder) of the repository that exists.
// Links inside code (fenced blocks, `code spans`) are not links; a #fragment or ?query is ignored; a target with a
// scheme (https:, mailto:) is not checked. Only Node's own modules: this runs without a build of the rest.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
const README_MAX_LINES = 160;

// Pages the README already names that are written on their own; a link to one is not reported while the page is
// missing. Remove an entry once its page exists.
const UNWRITTEN = new Set(['docs/architecture.md']);

interface Link {
  target: string;
  line: number;
}

/** Blanks fenced code blocks and code spans, keeping every newline so that offsets still give line numbers. */
function withoutCode(markdown: string): string {
  const lines = markdown.split('\n');
  let fence: string | undefined;
  const kept = lines.map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length) fence = undefined;
      return '';
    }
    if (m) {
      fence = m[1]!;
      return '';
    }
    return line;
  });
  return kept.join('\n').replace(/(`+)[\s\S]*?\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** Every link and image target of `markdown`: inline `[t](x)`, `![a](x)`, reference definitions and `<img src>`. */
function linkTargets(markdown: string): Link[] {
  const text = withoutCode(markdown);
  const lineAt = (index: number): number => text.slice(0, index).split('\n').length;
  const found: Link[] = [];
  const patterns = [
    /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g,
    /^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm,
    /<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi,
  ];
  for (const re of patterns) {
    for (const m of text.matchAll(re)) found.push({ target: m[1]!, line: lineAt(m.index) });
  }
  return found.sort((a, b) => a.line - b.line);
}

/** The repository path a relative target of `file` names, or undefined for an external or same-page target. */
function resolveTarget(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || target.startsWith('#')) return undefined;
  const path = decodeURIComponent(target.replace(/[?#].*$/, ''));
  if (path === '') return undefined;
  const absolute = path.startsWith('/') ? join(repoRoot, path) : resolve(dirname(join(repoRoot, file)), path);
  return relative(repoRoot, absolute).split(sep).join('/');
}

/** `file:line: target` for each link of `file` (repository-relative) that names nothing that exists. */
function brokenLinks(file: string, markdown: string, exists: (path: string) => boolean): string[] {
  const broken: string[] = [];
  for (const { target, line } of linkTargets(markdown)) {
    const path = resolveTarget(file, target);
    if (path === undefined || UNWRITTEN.has(path)) continue;
    if (path.startsWith('..') || !exists(path)) broken.push(`${file}:${line}: ${target}`);
  }
  return broken;
}

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...markdownUnder(path));
    else if (entry.name.endsWith('.md')) out.push(path);
  }
  return out.sort();
}

const existsInRepo = (path: string): boolean => existsSync(join(repoRoot, path));

describe('the checker', () => {
  it('finds inline links, images, reference definitions and <img>, with their lines', () => {
    const md = 'a [x](one.md) and ![p](img/p.png "t")\n\n[ref]: two.md#part\n<img alt="c" src="three.svg">\n';
    assert.deepEqual(linkTargets(md), [
      { target: 'one.md', line: 1 },
      { target: 'img/p.png', line: 1 },
      { target: 'two.md#part', line: 3 },
      { target: 'three.svg', line: 4 },
    ]);
  });

  it('ignores links in fenced blocks and code spans, and keeps counting lines past them', () => {
    const md = '```sh\n[a](in-fence.md)\n```\n`[b](in-span.md)` [c](after.md)\n';
    assert.deepEqual(linkTargets(md), [{ target: 'after.md', line: 4 }]);
  });

  it('resolves from the file’s folder, drops fragments and skips external and same-page targets', () => {
    assert.equal(resolveTarget('docs/reference/up.md', '../etcd.md#top'), 'docs/etcd.md');
    assert.equal(resolveTarget('README.md', 'docs/img/a%20b.png'), 'docs/img/a b.png');
    assert.equal(resolveTarget('docs/x.md', 'https://kubernetes.io/'), undefined);
    assert.equal(resolveTarget('docs/x.md', '#section'), undefined);
  });

  it('reports a missing file, and a path outside the repository, with file and line', () => {
    const md = 'fine: [a](here.md)\nnot: [b](gone.md)\n![c](../../outside.png)\n';
    assert.deepEqual(
      brokenLinks('docs/x.md', md, (p) => p === 'docs/here.md'),
      ['docs/x.md:2: gone.md', 'docs/x.md:3: ../../outside.png'],
    );
  });
});

describe('the documentation', () => {
  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(repoRoot, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines; move reference material into docs/`);
  });

  it('every relative link and image in README.md and docs/**/*.md names a file that exists', () => {
    const files = ['README.md', ...markdownUnder('docs')];
    assert.ok(files.length > 10, `found only ${files.join(', ')}`);
    const broken = files.flatMap((f) => brokenLinks(f, readFileSync(join(repoRoot, f), 'utf8'), existsInRepo));
    assert.deepEqual(broken, []);
  });

  it('README.md links to every page under docs/ except the ADRs, which it links as a folder', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const linked = new Set(linkTargets(readme).map((l) => resolveTarget('README.md', l.target)));
    const pages = markdownUnder('docs').filter((p) => !p.startsWith('docs/adr/'));
    const unreachable = pages.filter((p) => !linked.has(p));
    assert.deepEqual(unreachable, []);
    assert.ok(linked.has('docs/adr'), 'README.md does not link docs/adr/');
  });
});
