// Server-side apply against the rules kube's documentation gives for it, for random objects and random sequences of
// applies by two managers, updates by a third, forced or not. Each step is run twice: through the field manager, and
// through a model written from the rules alone (a map of leaf paths to values and to the managers that own them).
// After every step the object's fields and each manager's fields (read from metadata.managedFields) must be the
// model's, and an apply must fail with 409 exactly when the model finds a conflict.
//
// The rules (https://kubernetes.io/docs/reference/using-api/server-side-apply/):
//
// | rule | what it says                                                                                          | docs section           |
// |------|-------------------------------------------------------------------------------------------------------|------------------------|
// | R1   | An apply sets the fields of its configuration to its values, and its manager owns exactly those      | Field management       |
// |      | fields afterwards.                                                                                    |                        |
// | R2   | Appliers that set a field to the value it already has share the field.                               | Conflicts, Managers    |
// | R3   | An apply that would change a field another manager owns fails with a conflict and changes nothing.   | Conflicts              |
// | R4   | A forced apply changes such fields anyway; the other managers lose them.                             | Conflicts (force)      |
// | R5   | An update (create, update, patch) owns every field it changes, in addition to what it owned, without | Field management,      |
// |      | conflicts; the others lose those fields. A field it removes is owned by no one.                      | Apply and Update       |
// | R6   | A field an applier owned and no longer applies is removed from the object when no other manager     | Field management       |
// |      | owns it; otherwise it stays, owned by the others. The same holds for the items of a map or a list.   | (removing fields)      |
// | R7   | Items of a list-type map are told apart by their keys, items of a set by their value, keys of a      | Merge strategy         |
// |      | granular map by name; an atomic list is one field.                                                    |                        |
// | R8   | An object no manager owns anything of is not tracked by updates; the first apply to it records its   | apiserver source:      |
// |      | fields for "before-first-apply" first.                                                                | skipnonapplied.go      |

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApplyError, FieldManager } from '../../../src/server/fieldmanager/index.js';
import { customKindType } from '../../../src/server/fieldmanager/types.js';
import { paths as setPaths, type FieldSet } from '../../../src/server/fieldmanager/fieldset.js';
import { pathString } from '../../../src/server/fieldmanager/pathelement.js';
import type { KubeObject } from '../../../src/api/types.js';
import { FakeClock } from '../../helpers/fakeclock.js';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        data: { type: 'object', additionalProperties: { type: 'string' } },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, value: { type: 'string' } },
          },
        },
        atomic: { type: 'array', items: { type: 'string' } },
      },
    },
  },
};

const API_VERSION = 'test.dkc.io/v1';
const fm = new FieldManager({
  type: customKindType(schema),
  group: 'test.dkc.io',
  version: 'v1',
  kind: 'Widget',
  statusSubresource: false,
  emptyObject: () => ({ apiVersion: API_VERSION, kind: 'Widget' }),
  clock: new FakeClock(Date.parse('2030-01-01T00:00:00Z')),
});

type Manager = 'creator' | 'A' | 'B' | 'U' | 'before-first-apply';
/** Leaf paths: data.<k>, labels.<k>, tags[<v>], items[<name>], items[<name>].value, atomic. */
type Fields = Map<string, string>;

interface Model {
  values: Fields;
  owners: Map<string, Set<Manager>>;
}

// ---- objects from fields, and fields from objects ---------------------------------------------------------------

function toObject(f: Fields): KubeObject {
  const data: Record<string, string> = {};
  const labels: Record<string, string> = {};
  const tags: string[] = [];
  const items = new Map<string, { name: string; value?: string }>();
  let atomic: string[] | undefined;
  for (const [p, v] of f) {
    let m: RegExpMatchArray | null;
    if ((m = /^data\.(.+)$/.exec(p))) data[m[1]!] = v;
    else if ((m = /^labels\.(.+)$/.exec(p))) labels[m[1]!] = v;
    else if ((m = /^tags\[(.+)\]$/.exec(p))) tags.push(m[1]!);
    else if ((m = /^items\[(.+)\]$/.exec(p))) items.set(m[1]!, { ...items.get(m[1]!), name: m[1]! });
    else if ((m = /^items\[(.+)\]\.value$/.exec(p))) items.set(m[1]!, { ...items.get(m[1]!), name: m[1]!, value: v });
    else if (p === 'atomic') atomic = JSON.parse(v) as string[];
  }
  const spec: Record<string, unknown> = {};
  if (Object.keys(data).length) spec['data'] = data;
  if (tags.length) spec['tags'] = tags;
  if (items.size) spec['items'] = [...items.values()];
  if (atomic) spec['atomic'] = atomic;
  return {
    apiVersion: API_VERSION,
    kind: 'Widget',
    metadata: { name: 'w', ...(Object.keys(labels).length ? { labels } : {}) },
    ...(Object.keys(spec).length ? { spec } : {}),
  };
}

function fieldsOf(o: KubeObject): Fields {
  const f: Fields = new Map();
  const spec = (o['spec'] ?? {}) as {
    data?: Record<string, string>;
    tags?: string[];
    items?: { name: string; value?: string }[];
    atomic?: string[];
  };
  for (const [k, v] of Object.entries(spec.data ?? {})) f.set(`data.${k}`, v);
  for (const [k, v] of Object.entries(o.metadata.labels ?? {})) f.set(`labels.${k}`, v);
  for (const t of spec.tags ?? []) f.set(`tags[${t}]`, t);
  for (const i of spec.items ?? []) {
    f.set(`items[${i.name}]`, 'present');
    if (i.value !== undefined) f.set(`items[${i.name}].value`, i.value);
  }
  if (spec.atomic) f.set('atomic', JSON.stringify(spec.atomic));
  return f;
}

/** A FieldsV1 path as the model names it; undefined for containers and key fields, which the model leaves out. */
function modelPath(p: string): string | undefined {
  let m: RegExpMatchArray | null;
  if ((m = /^\.spec\.data\.(.+)$/.exec(p))) return `data.${m[1]}`;
  if ((m = /^\.metadata\.labels\.(.+)$/.exec(p))) return `labels.${m[1]}`;
  if ((m = /^\.spec\.tags\[="(.+)"\]$/.exec(p))) return `tags[${m[1]}]`;
  if ((m = /^\.spec\.items\[name="([^"]+)"\]$/.exec(p))) return `items[${m[1]}]`;
  if ((m = /^\.spec\.items\[name="([^"]+)"\]\.value$/.exec(p))) return `items[${m[1]}].value`;
  if (p === '.spec.atomic') return 'atomic';
  return undefined;
}

function ownersOf(o: KubeObject): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of (o.metadata.managedFields ?? []) as { manager: string; fieldsV1: FieldSet }[]) {
    for (const p of setPaths(e.fieldsV1)) {
      const mp = modelPath(pathString(p));
      if (mp === undefined) continue;
      if (!out.has(mp)) out.set(mp, new Set());
      out.get(mp)!.add(e.manager);
    }
  }
  return out;
}

// ---- the model: the rules, applied to paths ---------------------------------------------------------------------

function owners(m: Model, p: string): Set<Manager> {
  let s = m.owners.get(p);
  if (!s) m.owners.set(p, (s = new Set()));
  return s;
}

function removePath(m: Model, p: string): void {
  m.values.delete(p);
  m.owners.delete(p);
  // An item goes with its fields.
  if (/^items\[[^\]]+\]$/.test(p)) removePath(m, `${p}.value`);
}

/** R1–R4 and R6. Returns false for a conflict (R3), leaving the model as it was. */
function modelApply(m: Model, who: Manager, config: Fields, force: boolean): boolean {
  const untracked = m.owners.size === 0;
  if (untracked) for (const p of m.values.keys()) owners(m, p).add('before-first-apply'); // R8
  const conflict = [...config].some(
    ([p, v]) => m.values.get(p) !== v && [...(m.owners.get(p) ?? [])].some((o) => o !== who),
  );
  if (conflict && !force) {
    if (untracked) m.owners.clear();
    return false;
  }
  const before = [...m.owners].filter(([, s]) => s.has(who)).map(([p]) => p);
  for (const [p, v] of config) {
    if (m.values.get(p) !== v) {
      m.values.set(p, v);
      m.owners.set(p, new Set()); // R1, R4: changed fields are the applier's alone.
    }
    owners(m, p).add(who); // R2: unchanged fields are shared.
  }
  // R6: items first, so that an item that goes takes its fields with it.
  const dropped = before.filter((p) => !config.has(p)).sort((a, b) => a.length - b.length);
  for (const p of dropped) {
    if (!m.values.has(p)) continue;
    const s = owners(m, p);
    s.delete(who);
    if (s.size === 0) removePath(m, p);
  }
  return true;
}

/** R5: the updater owns what it changes; what it removes no one owns. */
function modelUpdate(m: Model, who: Manager, next: Fields): void {
  const tracked = m.owners.size > 0; // R8
  for (const [p, v] of next) {
    if (!tracked) break;
    if (m.values.get(p) !== v) m.owners.set(p, new Set([who]));
  }
  for (const p of [...m.values.keys()]) if (!next.has(p)) m.owners.delete(p);
  m.values = new Map(next);
  for (const [p, s] of [...m.owners]) if (s.size === 0 || !m.values.has(p)) m.owners.delete(p);
}

// ---- generators -------------------------------------------------------------------------------------------------

const value = fc.constantFrom('1', '2');
const fieldsArb: fc.Arbitrary<Fields> = fc
  .record({
    data: fc.dictionary(fc.constantFrom('a', 'b', 'c'), value, { maxKeys: 3 }),
    labels: fc.dictionary(fc.constantFrom('x', 'y'), value, { maxKeys: 2 }),
    tags: fc.uniqueArray(fc.constantFrom('t1', 't2', 't3'), { maxLength: 3 }),
    items: fc.uniqueArray(
      fc.record({
        name: fc.constantFrom('n1', 'n2'),
        value: fc.option(fc.constantFrom('v1', 'v2'), { nil: undefined }),
      }),
      {
        maxLength: 2,
        selector: (i) => i.name,
      },
    ),
    atomic: fc.option(fc.uniqueArray(fc.constantFrom('p', 'q'), { minLength: 1, maxLength: 2 }), { nil: undefined }),
  })
  .map((r) => {
    const f: Fields = new Map();
    for (const [k, v] of Object.entries(r.data)) f.set(`data.${k}`, v);
    for (const [k, v] of Object.entries(r.labels)) f.set(`labels.${k}`, v);
    for (const t of r.tags) f.set(`tags[${t}]`, t);
    for (const i of r.items) {
      f.set(`items[${i.name}]`, 'present');
      if (i.value !== undefined) f.set(`items[${i.name}].value`, i.value);
    }
    if (r.atomic) f.set('atomic', JSON.stringify(r.atomic));
    return f;
  });

type Op = { kind: 'apply'; who: 'A' | 'B'; config: Fields; force: boolean } | { kind: 'update'; next: Fields };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('apply' as const),
      who: fc.constantFrom('A' as const, 'B' as const),
      config: fieldsArb,
      force: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), next: fieldsArb }) },
);

function sameFields(a: Fields, b: Fields): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

function show(m: Map<string, unknown>): string {
  return JSON.stringify([...m].map(([k, v]) => [k, v instanceof Set ? [...v].sort() : v]).sort());
}

test('apply, apply and update sequences end where the documented rules say (R1–R7)', () => {
  fc.assert(
    fc.property(fieldsArb, fc.array(opArb, { minLength: 1, maxLength: 8 }), (initial, ops) => {
      const created = toObject(initial);
      const mf = fm.update(undefined, created, 'creator', '');
      let live: KubeObject = { ...created, metadata: { ...created.metadata, ...(mf ? { managedFields: mf } : {}) } };
      const model: Model = {
        values: new Map(initial),
        owners: new Map([...initial.keys()].map((p) => [p, new Set<Manager>(['creator'])])),
      };
      for (const op of ops) {
        if (op.kind === 'apply') {
          const accepted = modelApply(model, op.who, op.config, op.force);
          try {
            live = fm.apply(live, toObject(op.config), op.who, op.force, '');
            assert.ok(
              accepted,
              `the apply by ${op.who} of ${show(op.config)} went through, but the rules find a conflict`,
            );
          } catch (err) {
            if (!(err instanceof ApplyError) || err.code !== 409) throw err;
            assert.ok(
              !accepted,
              `${op.who}'s apply of ${show(op.config)} conflicted (${err.message}), but the rules find none`,
            );
          }
        } else {
          modelUpdate(model, 'U', op.next);
          const next = toObject(op.next);
          const managedFields = fm.update(live, next, 'U', '');
          live = { ...next, metadata: { ...next.metadata, ...(managedFields ? { managedFields } : {}) } };
        }
        assert.ok(
          sameFields(fieldsOf(live), model.values),
          `fields after ${op.kind}: ${show(fieldsOf(live))}, rules: ${show(model.values)}`,
        );
        const actual = ownersOf(live);
        assert.equal(show(actual), show(model.owners), `owners after ${op.kind}`);
      }
    }),
    { numRuns: 400, includeErrorInReport: true },
  );
});
