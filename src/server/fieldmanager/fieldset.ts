// Sets of field paths (structured-merge-diff's fieldpath.Set) held in FieldsV1's own shape, so a managedFields entry
// is read and written without conversion: each key is a serialized path element; a child object that is empty, or
// that holds ".", is itself a member of the set; its other keys are the paths below it. The set at the root is never
// a member itself (no one owns "the whole object").
//
// Operations are pure. They return one of their inputs when the result equals it (union with a subset, difference
// with nothing in common), so a manager whose fields did not change keeps the very object it was decoded from.

import { compareElements, isKnownElement, normalizeElement, SELF } from './pathelement.js';

export interface FieldSet {
  [pe: string]: FieldSet;
}

function isEmpty(o: FieldSet): boolean {
  for (const _ in o) return false;
  return true;
}

/** Whether a node (a set's child) is itself a member. */
export function isMember(node: FieldSet): boolean {
  return Object.hasOwn(node, SELF) || isEmpty(node);
}

/** Whether a node has paths below it. */
function hasChildren(node: FieldSet): boolean {
  for (const k in node) if (k !== SELF) return true;
  return false;
}

export function emptySet(): FieldSet {
  return {};
}

export function isEmptySet(s: FieldSet): boolean {
  return isEmpty(s);
}

/** A node from its membership and the set below it; undefined when it is neither. */
function makeNode(member: boolean, children: FieldSet | undefined): FieldSet | undefined {
  if (children === undefined || isEmpty(children)) return member ? {} : undefined;
  if (!member) return children;
  const out: FieldSet = { [SELF]: {} };
  for (const k in children) out[k] = children[k]!;
  return out;
}

function withSelf(node: FieldSet): FieldSet {
  if (Object.hasOwn(node, SELF)) return node;
  const out: FieldSet = { [SELF]: {} };
  for (const k in node) out[k] = node[k]!;
  return out;
}

/** The set below a node (the node without its "." marker). */
function childrenOf(node: FieldSet): FieldSet {
  if (!Object.hasOwn(node, SELF)) return node;
  const out: FieldSet = {};
  for (const k in node) if (k !== SELF) out[k] = node[k]!;
  return out;
}

/**
 * The nodes `insert` has given a child. Whether an object is empty takes a walk over all its keys once it holds many
 * (V8 enumerates a large object's keys before the first one), so building the set of a map with thousands of keys
 * asked it once per key; a node remembered here is known not to be empty.
 */
const parents = new WeakSet<FieldSet>();

/** Whether a node insert is building is empty (a member leaf so far). */
function isLeaf(node: FieldSet): boolean {
  return !parents.has(node) && isEmpty(node);
}

/** Adds a path in place (for sets a walk is building; never call it on a shared set). */
export function insert(s: FieldSet, path: readonly string[]): void {
  if (path.length === 0) return;
  let cur = s;
  for (let i = 0; i < path.length - 1; i++) {
    const pe = path[i]!;
    let next = cur[pe];
    if (next === undefined) {
      next = {};
      cur[pe] = next;
      parents.add(next);
      // A fresh node gets its child at once, so it never reads as a member leaf.
      cur = next;
      const child = path[i + 1]!;
      if (i + 1 === path.length - 1) {
        next[child] = {};
        return;
      }
      continue;
    }
    if (isLeaf(next)) next[SELF] = {};
    parents.add(next);
    cur = next;
  }
  const last = path[path.length - 1]!;
  const existing = cur[last];
  if (existing === undefined) cur[last] = {};
  else if (!Object.hasOwn(existing, SELF) && !isLeaf(existing)) existing[SELF] = {};
}

export function has(s: FieldSet, path: readonly string[]): boolean {
  if (path.length === 0) return false;
  let cur: FieldSet | undefined = s;
  for (let i = 0; i < path.length - 1; i++) {
    cur = Object.hasOwn(cur, path[i]!) ? cur[path[i]!] : undefined;
    if (cur === undefined) return false;
  }
  const node = Object.hasOwn(cur, path[path.length - 1]!) ? cur[path[path.length - 1]!] : undefined;
  return node !== undefined && isMember(node);
}

/** The paths below `pe`, without it (SMD's WithPrefix); empty when there are none. */
export function below(s: FieldSet, pe: string): FieldSet {
  const node = Object.hasOwn(s, pe) ? s[pe]! : undefined;
  return node === undefined ? {} : childrenOf(node);
}

/** Whether `pe` itself is a member of s. */
export function hasElement(s: FieldSet, pe: string): boolean {
  const node = Object.hasOwn(s, pe) ? s[pe]! : undefined;
  return node !== undefined && isMember(node);
}

function unionNode(a: FieldSet, b: FieldSet): FieldSet {
  if (a === b) return a;
  if (isEmpty(b)) return isMember(a) ? a : withSelf(a);
  if (isEmpty(a)) return isMember(b) ? b : withSelf(b);
  let out: FieldSet | undefined;
  if (Object.hasOwn(b, SELF) && !Object.hasOwn(a, SELF)) out = withSelf(a);
  for (const k in b) {
    if (k === SELF) continue;
    const av = Object.hasOwn(a, k) ? a[k] : undefined;
    const next = av === undefined ? b[k]! : unionNode(av, b[k]!);
    if (next !== av) {
      out ??= { ...a };
      out[k] = next;
    }
  }
  return out ?? a;
}

export function union(a: FieldSet, b: FieldSet): FieldSet {
  if (a === b || isEmpty(b)) return a;
  if (isEmpty(a)) return b;
  let out: FieldSet | undefined;
  for (const k in b) {
    const av = Object.hasOwn(a, k) ? a[k] : undefined;
    const next = av === undefined ? b[k]! : unionNode(av, b[k]!);
    if (next !== av) {
      out ??= { ...a };
      out[k] = next;
    }
  }
  return out ?? a;
}

/** The members of both (a set; "." keys of nodes are skipped by the caller's choice of inputs). */
function intersectChildren(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = {};
  for (const k in a) {
    if (k === SELF || !Object.hasOwn(b, k)) continue;
    const av = a[k]!;
    const bv = b[k]!;
    const node = makeNode(
      isMember(av) && isMember(bv),
      hasChildren(av) && hasChildren(bv) ? intersectChildren(av, bv) : undefined,
    );
    if (node !== undefined) out[k] = node;
  }
  return out;
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  if (isEmpty(a) || isEmpty(b)) return {};
  return intersectChildren(a, b);
}

/** a minus b, b's children compared with a's children (membership of a node comes off only if b has it as a member). */
function differenceChildren(a: FieldSet, b: FieldSet): FieldSet {
  let out: FieldSet | undefined;
  for (const k in b) {
    if (k === SELF || !Object.hasOwn(a, k)) continue;
    const av = a[k]!;
    const bv = b[k]!;
    const wasMember = isMember(av);
    const member = wasMember && !isMember(bv);
    let below: FieldSet | undefined = hasChildren(av) ? av : undefined;
    let changed = member !== wasMember;
    if (below !== undefined && hasChildren(bv)) {
      const d = differenceChildren(av, bv);
      if (d !== av) {
        below = d;
        changed = true;
      }
    }
    const next = changed ? makeNode(member, below === undefined ? undefined : childrenOf(below)) : av;
    if (next !== av) {
      out ??= { ...a };
      if (next === undefined) delete out[k];
      else out[k] = next;
    }
  }
  return out ?? a;
}

export function difference(a: FieldSet, b: FieldSet): FieldSet {
  if (isEmpty(a) || isEmpty(b)) return a;
  return differenceChildren(a, b);
}

/** a minus b, where a member of b takes everything below it in a too (SMD's RecursiveDifference). */
function recursiveDifferenceChildren(a: FieldSet, b: FieldSet): FieldSet {
  let out: FieldSet | undefined;
  for (const k in b) {
    if (k === SELF || !Object.hasOwn(a, k)) continue;
    const av = a[k]!;
    const bv = b[k]!;
    let next: FieldSet | undefined;
    if (isMember(bv)) next = undefined;
    else if (!hasChildren(av)) next = av;
    else {
      const children = recursiveDifferenceChildren(av, bv);
      next = children === av ? av : makeNode(isMember(av), childrenOf(children));
    }
    if (next !== av) {
      out ??= { ...a };
      if (next === undefined) delete out[k];
      else out[k] = next;
    }
  }
  return out ?? a;
}

export function recursiveDifference(a: FieldSet, b: FieldSet): FieldSet {
  if (isEmpty(a) || isEmpty(b)) return a;
  return recursiveDifferenceChildren(a, b);
}

export function equals(a: FieldSet, b: FieldSet): boolean {
  if (a === b) return true;
  let n = 0;
  for (const k in a) {
    n++;
    if (!Object.hasOwn(b, k) || !equals(a[k]!, b[k]!)) return false;
  }
  for (const _ in b) n--;
  return n === 0;
}

function sortedKeys(s: FieldSet): string[] {
  return Object.keys(s).sort(compareElements);
}

/**
 * Every member, in upstream's iteration order: at each level the members first (in path-element order), then the
 * paths below each child. The path array passed to `f` is reused; copy it to keep it.
 */
export function iterate(s: FieldSet, f: (path: readonly string[]) => void, prefix: string[] = []): void {
  const keys = sortedKeys(s).filter((k) => k !== SELF);
  for (const k of keys) {
    if (isMember(s[k]!)) {
      prefix.push(k);
      f(prefix);
      prefix.pop();
    }
  }
  for (const k of keys) {
    const node = s[k]!;
    if (!hasChildren(node)) continue;
    prefix.push(k);
    iterate(node, f, prefix);
    prefix.pop();
  }
}

export function paths(s: FieldSet): string[][] {
  const out: string[][] = [];
  iterate(s, (p) => out.push([...p]));
  return out;
}

/** Sets known to be in FieldsV1's order: stored ones (written sorted) and those sorted here. */
const sortedSets = new WeakSet<FieldSet>();

/** Marks a set read from storage, which this server wrote in order. */
export function knownSorted(s: FieldSet): FieldSet {
  sortedSets.add(s);
  return s;
}

/** The set with its keys in FieldsV1's order ("." first); the same object when it already is. */
export function sorted(s: FieldSet): FieldSet {
  if (sortedSets.has(s)) return s;
  const out = sortedWalk(s);
  sortedSets.add(out);
  return out;
}

function sortedWalk(s: FieldSet): FieldSet {
  const keys = Object.keys(s);
  let inOrder = true;
  for (let i = 1; i < keys.length; i++) {
    if (compareElements(keys[i - 1]!, keys[i]!) >= 0) {
      inOrder = false;
      break;
    }
  }
  let children: Map<string, FieldSet> | undefined;
  for (const k of keys) {
    const child = sortedSets.has(s[k]!) ? s[k]! : sortedWalk(s[k]!);
    if (child !== s[k]) (children ??= new Map()).set(k, child);
  }
  if (inOrder && children === undefined) return s;
  const out: FieldSet = {};
  for (const k of inOrder ? keys : keys.sort(compareElements)) out[k] = children?.get(k) ?? s[k]!;
  return out;
}

/**
 * A set read from a client: unknown path element kinds dropped (as upstream drops them), keys, values and indexes
 * written as this server writes them, shapes checked; undefined when it is no FieldsV1.
 */
export function fromFieldsV1(v: unknown, depth = 0): FieldSet | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || depth > 256) return undefined;
  const out: FieldSet = {};
  for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
    if (k === SELF) {
      if (depth > 0) out[SELF] = {};
      continue;
    }
    if (!isKnownElement(k)) continue;
    const pe = normalizeElement(k);
    const node = pe === undefined ? undefined : fromFieldsV1(child, depth + 1);
    if (pe === undefined || node === undefined) return undefined;
    out[pe] = Object.hasOwn(out, pe) ? union(out[pe]!, node) : node;
  }
  return out;
}
