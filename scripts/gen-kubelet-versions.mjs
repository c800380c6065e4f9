// Writes src/kubeletconfig/versions/kubelet-1.NN.ts, one table of facts per kubelet minor: the v1beta1
// KubeletConfiguration fields (JSON path, Go name, value kind, pointer and omitempty, documented default, the minor
// that introduced it) and the feature gates that kubelet registers (default, stage, lock). The code that applies
// the tables is src/kubeletconfig/versions.ts; the rules each minor adds by hand are in src/kubeletconfig/rules.ts.
//
// Sources (git directories of upstream's published repositories; none is needed to build or test):
//   --kubelet DIR         k8s.io/kubelet: config/v1beta1/types.go at tag v0.NN.0 (fields, nested types, defaults
//                         from each field's "Default:" doc comment)
//   --component-base DIR  k8s.io/component-base at the same tag: logs/api/v1 and config/v1alpha1 (logging),
//                         tracing/api/v1 (tracing)
//   --api DIR             k8s.io/api at the same tag: core/v1 Taint (registerWithTaints)
//   scripts/kubelet-versions/feature-gates.txt, the gate history (its own header names where each line came from:
//                         upstream's versioned gate lists at four commits, and the website's gate pages)
//
// A new kubelet minor: fetch the three repositories again, run this with --to 1.NN, commit the new table, add the
// minor's hand-written rules (defaults the doc comments do not state, validation) to src/kubeletconfig/rules.ts.
//
// Usage: node scripts/gen-kubelet-versions.mjs [--kubelet DIR] [--component-base DIR] [--api DIR] [--to 1.36]

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join('=')
    .split(/=?--/)
    .filter(Boolean)
    .map((a) => a.split('=')),
);
const MIRROR = '/work/.mirror';
const repos = {
  kubelet: args['kubelet'] ?? `${MIRROR}/kubernetes+kubelet/repo`,
  componentBase: args['component-base'] ?? `${MIRROR}/kubernetes+component-base/repo`,
  api: args['api'] ?? `${MIRROR}/kubernetes+api/repo`,
};
const FIRST = 22;
const LAST = Number((args['to'] ?? '1.36').split('.')[1]);
const outDir = join(root, 'src/kubeletconfig/versions');

const git = (dir, ...a) => execFileSync('git', ['--git-dir', dir, ...a], { encoding: 'utf8', maxBuffer: 1 << 27 });
const show = (dir, tag, path) => git(dir, 'show', `${tag}:${path}`);
const commitOf = (dir, tag) => git(dir, 'rev-list', '-n', '1', tag).trim();
const has = (dir, tag, path) => {
  try {
    execFileSync('git', ['--git-dir', dir, 'cat-file', '-e', `${tag}:${path}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Every `type X struct { … }` of a Go file: its fields with doc comment, Go name, Go type and json tag. */
function goStructs(src) {
  const out = new Map();
  const re = /^type (\w+) struct \{\n([\s\S]*?)^\}/gm;
  let m;
  while ((m = re.exec(src))) {
    const fields = [];
    let comment = [];
    for (const line of m[2].split('\n')) {
      const t = line.trim();
      if (t.startsWith('//')) {
        comment.push(t.replace(/^\/\/ ?/, ''));
        continue;
      }
      const f = /^(\w+)\s+(\S+)\s+`json:"([^"]*)"/.exec(t);
      if (f) fields.push({ go: f[1], type: f[2], tag: f[3], comment });
      else {
        const inline = /^([\w.]+)\s+`json:",inline"`/.exec(t);
        if (inline && inline[1] !== 'metav1.TypeMeta')
          fields.push({ go: inline[1], type: inline[1], tag: ',inline', comment });
      }
      comment = [];
    }
    out.set(m[1], fields);
  }
  return out;
}

/** A named non-struct type (`type VerbosityLevel uint32`). */
function goAliases(src) {
  const out = new Map();
  for (const m of src.matchAll(/^type (\w+) (\[\]\w+|\w+)$/gm)) out.set(m[1], m[2]);
  return out;
}

/** The first "Default: …" line of a doc comment, as written. */
function documentedDefault(comment) {
  const line = comment.find((c) => /^Defaults?:/.test(c));
  if (!line) return '';
  const v = line.replace(/^Defaults?:\s*/, '');
  return v === '' ? '(see nested fields)' : v;
}

/** Go type → the library's value kind; struct types recurse. */
function kindOf(type, pkg) {
  const t = type.replace(/^\*/, '');
  const named = pkg.aliases.get(t);
  if (['bool'].includes(t)) return { kind: 'bool' };
  if (t === 'int32') return { kind: 'int32' };
  if (t === 'int64') return { kind: 'int64' };
  if (t === 'uint32' || named === 'uint32') return { kind: 'uint32' };
  if (t === 'float64') return { kind: 'float64' };
  if (t === 'string' || named === 'string' || t === 'v1.TaintEffect' || t === 'TaintEffect') return { kind: 'string' };
  if (t === 'v1.ResourceList') return { kind: 'quantityMap' };
  // Written as a duration string or, for old payloads, nanoseconds: kept as the JSON it is.
  if (/TimeOrMetaDuration$/.test(t)) return { kind: 'json' };
  if (t === 'metav1.Duration') return { kind: 'duration' };
  if (t === '[]string') return { kind: 'strings' };
  if (t === '[]int32') return { kind: 'int32s' };
  if (t === 'map[string]string') return { kind: 'stringMap' };
  if (t === 'map[string][]string') return { kind: 'stringsMap' };
  if (t === 'map[string]bool') return { kind: 'boolMap' };
  if (t === 'map[string]resource.Quantity') return { kind: 'quantityMap' };
  if (t === '[]MemoryReservation') return { kind: 'reservedMemory', struct: 'MemoryReservation' };
  const list = /^\[\](\w+|v1\.Taint)$/.exec(t);
  if (list && pkg.structOf(list[1])) return { kind: 'structList', struct: list[1] };
  if (pkg.structOf(t)) return { kind: 'struct', struct: t };
  // time.Duration as nanoseconds, TimeOrMetaDuration, QuantityValue, metav1.Time, VModuleConfiguration: kept as the
  // JSON they are written as.
  return { kind: 'json' };
}

function collect(n) {
  const tag = `v0.${n}.0`;
  const kubelet = show(repos.kubelet, tag, 'config/v1beta1/types.go');
  const kStructs = goStructs(kubelet);
  const kAliases = goAliases(kubelet);
  const external = new Map();
  const sources = [`k8s.io/kubelet config/v1beta1/types.go at ${tag} (commit ${commitOf(repos.kubelet, tag)})`];
  const cbFiles = ['logs/api/v1/types.go', 'config/v1alpha1/types.go', 'tracing/api/v1/types.go'].filter((p) =>
    has(repos.componentBase, tag, p),
  );
  const cbSource = (p) => goStructs(show(repos.componentBase, tag, p));
  for (const p of cbFiles) {
    const structs = cbSource(p);
    const prefix = p.startsWith('logs/')
      ? 'logsapi'
      : p.startsWith('tracing/')
        ? 'tracingapi'
        : 'componentbaseconfigv1alpha1';
    for (const [name, fields] of structs)
      external.set(`${prefix}.${name}`, {
        goType: `${p.startsWith('config/') ? 'v1alpha1' : 'v1'}.${name}`,
        fields,
        prefix,
      });
    for (const [name, under] of goAliases(show(repos.componentBase, tag, p))) kAliases.set(`${prefix}.${name}`, under);
  }
  sources.push(`k8s.io/component-base ${cbFiles.join(', ')} at ${tag} (commit ${commitOf(repos.componentBase, tag)})`);
  if (kubelet.includes('[]v1.Taint')) {
    const taint = goStructs(show(repos.api, tag, 'core/v1/types.go')).get('Taint');
    external.set('v1.Taint', { goType: 'v1.Taint', fields: taint, prefix: 'v1' });
    sources.push(`k8s.io/api core/v1/types.go (Taint) at ${tag} (commit ${commitOf(repos.api, tag)})`);
  }
  const resolve = (name, prefix) => {
    if (!prefix && kStructs.has(name)) return { goType: `v1beta1.${name}`, fields: kStructs.get(name), prefix: '' };
    const q = prefix && !name.includes('.') ? `${prefix}.${name}` : name;
    return external.get(q);
  };
  const rows = [];
  const walk = (fields, path, prefix) => {
    const pkg = {
      aliases: kAliases,
      structOf: (t) => resolve(t, prefix),
    };
    for (const f of fields) {
      if (f.tag === ',inline') {
        const s = resolve(f.type, prefix);
        if (s) walk(s.fields, path, s.prefix);
        continue;
      }
      const [json, ...opts] = f.tag.split(',');
      if (json === '-' || json === '') continue;
      const typeForKind =
        prefix && !f.type.includes('.') && !/^(\*|\[\]|map)/.test(f.type) && kAliases.has(`${prefix}.${f.type}`)
          ? `${prefix}.${f.type}`
          : f.type;
      const k = kindOf(typeForKind.replace(/^\*/, '') === f.type.replace(/^\*/, '') ? f.type : typeForKind, {
        aliases: kAliases,
        structOf: (t) => (prefix && !t.includes('.') ? resolve(t, prefix) : resolve(t, '')) ?? resolve(t, prefix),
      });
      const flags = (f.type.startsWith('*') ? 'p' : '') + (opts.includes('omitempty') ? '' : 'a');
      const p = path === '' ? json : `${path}.${json}`;
      const s = k.struct
        ? prefix && !k.struct.includes('.')
          ? resolve(k.struct, prefix)
          : resolve(k.struct, '')
        : undefined;
      rows.push({
        path: p,
        go: f.go,
        kind: k.kind,
        flags,
        goType: s ? s.goType : '',
        def: documentedDefault(f.comment),
      });
      if (s) walk(s.fields, k.kind === 'struct' ? p : `${p}[]`, s.prefix);
      void pkg;
    }
  };
  walk(kStructs.get('KubeletConfiguration'), '', '');
  return { rows, sources };
}

// ---------------------------------------------------------------------------------------------------------------
// Feature gates.

const STAGE = { A: 'Alpha', B: 'Beta', G: 'GA', D: 'Deprecated' };
const minor = (v) => Number(v.split('.')[1]);

function gateHistory() {
  const lines = readFileSync(join(root, 'scripts/kubelet-versions/feature-gates.txt'), 'utf8').split('\n');
  const out = new Map();
  for (const line of lines) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [name, specs, last, source, first] = line.trim().split(/\s+/);
    out.set(name, {
      first: first === undefined ? 0 : minor(first),
      specs: specs.split(',').map((s) => {
        const [v, st, d, l] = s.split(':');
        return { from: minor(v), stage: STAGE[st], def: d === 't', locked: l === 'L' };
      }),
      last: last === '-' ? Infinity : minor(last),
      source,
    });
  }
  return out;
}

/** The 1.22 table as the library has it: name → { def, stage, locked }. */
function gates122() {
  const src = readFileSync(join(root, 'src/kubeletconfig/validation.ts'), 'utf8');
  const table = /const TABLE = `([\s\S]*?)`;/.exec(src)[1];
  const out = new Map();
  for (const e of table.trim().split(/\s+/)) {
    const [name, d, st, l] = e.split(':');
    out.set(name, { def: d === 't', stage: STAGE[st], locked: l === 'L' });
  }
  return out;
}

function gatesFor(n, history, base) {
  const out = [];
  for (const [name, h] of history) {
    if (n > h.last || n < h.first) continue;
    const spec = [...h.specs].reverse().find((s) => s.from <= n);
    if (!spec) continue;
    let locked = spec.locked;
    // The website's pages say nothing of locks: a GA gate is locked unless the 1.22 table knew it unlocked at GA.
    if ((h.source === 'r' || h.source === 'w') && spec.stage === 'GA')
      locked = !(base.get(name)?.stage === 'GA' && !base.get(name).locked);
    out.push([name, spec.def, spec.stage, locked, h.source]);
  }
  out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  out.push(['AllAlpha', false, 'Alpha', false, 'component-base'], ['AllBeta', false, 'Beta', false, 'component-base']);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

/** A TypeScript string literal in single quotes. */
const q = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const history = gateHistory();
const base = gates122();
// The history must account for every gate the 1.22 table knows: a gap would be a guess.
const unaccounted = [...base.keys()].filter((g) => !history.has(g) && g !== 'AllAlpha' && g !== 'AllBeta');
if (unaccounted.length > 0)
  throw new Error(
    `scripts/kubelet-versions/feature-gates.txt has no line for the 1.22 gates ${unaccounted.join(', ')}`,
  );
const all = [];
for (let n = FIRST; n <= LAST; n++) all.push({ n, ...collect(n) });
const since = new Map();
for (const { n, rows } of all) for (const r of rows) if (!since.has(r.path)) since.set(r.path, n);

mkdirSync(outDir, { recursive: true });
for (const f of readdirSync(outDir)) if (/^kubelet-1\.\d+\.ts$/.test(f)) rmSync(join(outDir, f));
for (const { n, rows, sources } of all) {
  const gates = gatesFor(n, history, base);
  const text = [
    `// Generated by scripts/gen-kubelet-versions.mjs: do not edit, regenerate. Facts about the Kubernetes 1.${n} kubelet.`,
    '//',
    '// fields: KubeletConfiguration v1beta1 as that kubelet decodes it, from',
    ...sources.map((s) => `//   ${s}`),
    "//   columns: JSON path ([] marks a list's items), Go field, value kind, flags (p pointer, a no omitempty), Go type",
    "//   of a struct, the minor that introduced the field, and the default its doc comment states ('' when none).",
    '// gates: the feature gates that kubelet registers, from scripts/kubelet-versions/feature-gates.txt; columns: name,',
    "//   default, stage, locked, source (z, y, x, w, r: the documents named in that file's header; component-base).",
    '',
    "import type { VersionTable } from './table.js';",
    '',
    'export default function table(): VersionTable {',
    '  return {',
    `    version: '1.${n}',`,
    '    fields: [',
    ...rows.map(
      (r) =>
        `      [${[r.path, r.go, r.kind, r.flags, r.goType].map(q).join(', ')}, ${since.get(r.path)}, ${q(r.def)}],`,
    ),
    '    ],',
    '    gates: [',
    ...gates.map((g) => `      [${q(g[0])}, ${g[1]}, ${q(g[2])}, ${g[3]}, ${q(g[4])}],`),
    '    ],',
    '  };',
    '}',
    '',
  ].join('\n');
  writeFileSync(join(outDir, `kubelet-1.${n}.ts`), text);
}
console.log(`wrote ${all.length} tables to ${outDir}`);
