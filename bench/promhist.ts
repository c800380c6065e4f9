// Quantiles of a Prometheus histogram between two scrapes, per value of one label (e.g. kube-apiserver's
// apiserver_request_duration_seconds by verb): the bucket counts of the second scrape minus those of the first,
// summed over the other labels, and the quantile interpolated within its bucket as PromQL's histogram_quantile does.
// Pure: text in, figures out.

/** Cumulative bucket counts by label value → upper bound (seconds, +Inf as Infinity) → count. */
export type Buckets = Map<string, Map<number, number>>;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The `<name>_bucket` samples of an exposition text, summed by `by`. */
export function parseBuckets(text: string, name: string, by: string | readonly string[]): Buckets {
  const labelsBy = typeof by === 'string' ? [by] : by;
  const out: Buckets = new Map();
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== `${name}_bucket`) continue;
    const labels = new Map([...m[2]!.matchAll(LABEL)].map((l) => [l[1]!, l[2]!]));
    const le = labels.get('le');
    if (le === undefined) continue;
    const key = labelsBy.map((l) => labels.get(l) ?? '').join(' ');
    const bound = le === '+Inf' ? Infinity : Number(le);
    const series = out.get(key) ?? new Map<number, number>();
    series.set(bound, (series.get(bound) ?? 0) + Number(m[3]));
    out.set(key, series);
  }
  return out;
}

/** Requests observed between the two scrapes and the q-quantile in seconds, per label value (only values with requests). */
export function quantilesBetween(
  before: Buckets,
  after: Buckets,
  q: number,
): Map<string, { count: number; quantile: number }> {
  const result = new Map<string, { count: number; quantile: number }>();
  for (const [key, series] of after) {
    const prev = before.get(key);
    const bounds = [...series.keys()].sort((a, b) => a - b);
    const counts = bounds.map((b) => series.get(b)! - (prev?.get(b) ?? 0));
    const total = counts[counts.length - 1] ?? 0;
    if (total <= 0) continue;
    result.set(key, { count: total, quantile: interpolate(bounds, counts, q * total) });
  }
  return result;
}

/** histogram_quantile's rule: linear within the bucket that holds the rank; the highest finite bound if that is +Inf. */
function interpolate(bounds: number[], cumulative: number[], rank: number): number {
  const i = cumulative.findIndex((c) => c >= rank);
  const upper = bounds[i]!;
  if (upper === Infinity) return bounds[bounds.length - 2] ?? NaN;
  const lower = i > 0 ? bounds[i - 1]! : 0;
  const below = i > 0 ? cumulative[i - 1]! : 0;
  const inBucket = cumulative[i]! - below;
  return inBucket > 0 ? lower + ((upper - lower) * (rank - below)) / inBucket : upper;
}
