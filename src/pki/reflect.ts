// @peculiar/x509 registers its algorithms through tsyringe, which refuses to load unless a Reflect
// metadata API exists. dkc has no use for decorator metadata otherwise, so rather than shipping a full
// polyfill we provide the three functions tsyringe calls, and only when nothing else installed them.
// This module must be imported before @peculiar/x509.

type Bag = Map<unknown, unknown>;
type MetadataFn = (...args: unknown[]) => unknown;

const targets = new WeakMap<object, Map<PropertyKey | undefined, Bag>>();

function bagOf(target: object, prop: PropertyKey | undefined, create: boolean): Bag | undefined {
  let byProp = targets.get(target);
  if (!byProp) {
    if (!create) return undefined;
    byProp = new Map();
    targets.set(target, byProp);
  }
  let bag = byProp.get(prop);
  if (!bag && create) {
    bag = new Map();
    byProp.set(prop, bag);
  }
  return bag;
}

const R = Reflect as unknown as Record<string, MetadataFn | undefined>;

if (typeof R['getMetadata'] !== 'function') {
  R['defineMetadata'] = (key, value, target, prop) => {
    bagOf(target as object, prop as PropertyKey | undefined, true)!.set(key, value);
  };
  R['getOwnMetadata'] = (key, target, prop) =>
    bagOf(target as object, prop as PropertyKey | undefined, false)?.get(key);
  R['getMetadata'] = (key, target, prop) => {
    // Metadata is inherited along the prototype chain, as in the reflect-metadata proposal.
    for (let o: object | null = target as object; o; o = Object.getPrototypeOf(o) as object | null) {
      const bag = bagOf(o, prop as PropertyKey | undefined, false);
      if (bag?.has(key)) return bag.get(key);
    }
    return undefined;
  };
}

export {};
