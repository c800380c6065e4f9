// Query parameters as kube-apiserver converts them into ListOptions, GetOptions and friends. One place, so that
// every handler reads `watch`, `allowWatchBookmarks` and the like the same way.

/**
 * A boolean query parameter as apimachinery's Convert_Slice_string_To_bool reads it: absent is false, `0` and
 * `false` (any case) are false, every other value (`true`, `True`, `1`, `t`, even the empty string) is true.
 * The official Python client sends `watch=True`.
 */
export function boolParam(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  if (v === null) return false;
  return !(v === '0' || v.toLowerCase() === 'false');
}
