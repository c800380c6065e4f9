// "Did you mean": the known field an unknown one was most likely meant to be. A typo such as `maxPodz` is
// ignored by the kubelet's lenient decode, so the only chance an operator has to notice it is a warning that
// names the field they wanted. Pure string work over the names the schema knows at that level.

/** Damerau–Levenshtein distance (optimal string alignment): a swap of two neighbours counts as one edit. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name closest to `name`: a case-insensitive match first (`MaxPods` → `maxPods`, which the kubelet's
 * case-sensitive decode ignores), else the nearest within a third of the name's length (at least one edit, at most
 * three), ties going to the earlier name. Undefined when nothing is close enough to be a plausible typo.
 */
export function suggestName(name: string, known: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const k of known) {
    if (k.toLowerCase() === lower) return k;
    const dist = editDistance(lower, k.toLowerCase());
    if (dist < bestDistance) {
      best = k;
      bestDistance = dist;
    }
  }
  return best;
}
