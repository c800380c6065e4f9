// A value of any type as text, for messages and table cells that show whatever they were given.

/**
 * JavaScript's own String(v): a string unchanged, a number or boolean as written, an object through its toString —
 * "[object Object]" for one without its own. Callers take that for values they expect to be scalars.
 */
export function anyText(v: unknown): string {
  return String(v);
}
