// ClusterRole aggregation, as kube-controller-manager's clusterrole-aggregation controller does it: a ClusterRole with
// an aggregationRule holds, as its rules, the rules of every other ClusterRole its selectors match (selectors in
// order, matching roles by name, each distinct rule once). That is how a kind added later joins `view`, `edit` and
// `admin`: a ClusterRole labelled `rbac.authorization.k8s.io/aggregate-to-view: "true"`. The server keeps the rules
// up to date itself, following its ClusterRole watch cache and writing as system:apiserver; every replica computes
// the same rules, so replicas that race write the same answer.

import { deepEqual } from '../../api/equal.js';
import { StatusError } from '../../api/errors.js';
import type { KubeObject } from '../../api/types.js';
import { matchesLabels, newLabelRequirement, type LabelOperator, type LabelSelector } from '../../api/selectors.js';
import { klog } from '../../util/klog.js';
import type { UserInfo } from '../authz.js';
import { KeyQueue } from '../keyqueue.js';
import type { ResourceStorage, WriteContext } from '../resources.js';

interface MetaLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

const OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** metav1.LabelSelectorAsSelector; an empty selector selects everything, an invalid one throws. */
function asSelector(sel: MetaLabelSelector): LabelSelector {
  const reqs: LabelSelector = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push(newLabelRequirement(k, '=', [v]));
  for (const e of sel.matchExpressions ?? []) {
    const op = OPERATORS[e.operator];
    if (op === undefined) throw new Error(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    reqs.push(newLabelRequirement(e.key, op, e.values ?? []));
  }
  return reqs;
}

export function clusterRoleSelectors(role: KubeObject): MetaLabelSelector[] | undefined {
  const rule = role['aggregationRule'] as { clusterRoleSelectors?: unknown } | null | undefined;
  if (!rule || !Array.isArray(rule.clusterRoleSelectors)) return undefined;
  return rule.clusterRoleSelectors.filter((s): s is MetaLabelSelector => s !== null && typeof s === 'object');
}

const byName = (a: KubeObject, b: KubeObject): number => {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The rules an aggregating ClusterRole should hold, given every ClusterRole there is; undefined if it aggregates nothing. */
export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): unknown[] | undefined {
  const selectors = clusterRoleSelectors(role);
  if (!selectors) return undefined;
  const rules: unknown[] = [];
  for (const sel of selectors) {
    const selector = asSelector(sel);
    const matching = all
      .filter((r) => r.metadata.name !== role.metadata.name && matchesLabels(selector, r.metadata.labels))
      .sort(byName);
    for (const r of matching) {
      for (const rule of Array.isArray(r['rules']) ? (r['rules'] as unknown[]) : []) {
        if (!rules.some((have) => deepEqual(have, rule))) rules.push(rule);
      }
    }
  }
  return rules;
}

/** The same roles with every aggregating role's rules filled in (aggregated roles may feed each other). */
export function withAggregatedRules(roles: readonly KubeObject[]): KubeObject[] {
  let current = roles.map((r) => structuredClone(r));
  for (let pass = 0; pass < current.length; pass++) {
    let changed = false;
    current = current.map((r) => {
      const rules = aggregatedRules(r, current);
      if (!rules || deepEqual(rules, r['rules'] ?? [])) return r;
      changed = true;
      return { ...r, rules };
    });
    if (!changed) break;
  }
  return current;
}

const SYSTEM: UserInfo = { name: 'system:apiserver', groups: ['system:masters'] };
const systemWrite = (): WriteContext => ({ user: SYSTEM, dryRun: false, fieldValidation: 'Ignore', warnings: [] });
const CONFLICT_RETRIES = 3;

/** Keeps aggregating ClusterRoles' rules in step with the ClusterRoles they select. */
export class ClusterRoleAggregator {
  private readonly queue = new KeyQueue();
  private watch?: { cancel(): void };
  private stopped = false;
  private retry?: NodeJS.Timeout;
  private pending: Promise<void> | undefined;
  private again = false;

  constructor(private readonly storage: ResourceStorage) {}

  /** Brings every aggregating role up to date, then follows changes. */
  async start(): Promise<void> {
    const from = this.storage.cache.currentRevision;
    await this.syncAll();
    this.follow(from);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    this.watch?.cancel();
  }

  /** Resolves once the aggregation that is running or asked for has finished (tests). */
  async settled(): Promise<void> {
    while (this.pending) await this.pending;
  }

  private follow(from: number): void {
    if (this.stopped) return;
    this.watch = this.storage.cache.watch(from, {
      matches: () => true,
      // Any ClusterRole's change may change what an aggregating role selects: one pass over all of them per batch.
      deliver: () => this.schedule(),
      terminate: () => {
        if (this.stopped) return;
        this.retry = setTimeout(
          () => void this.start().catch((err: unknown) => klog.error(`ClusterRole aggregation: ${String(err)}`)),
          1000,
        );
      },
    });
  }

  private schedule(): void {
    if (this.pending) {
      this.again = true;
      return;
    }
    this.pending = (async () => {
      do {
        this.again = false;
        await this.syncAll();
      } while (this.again && !this.stopped);
    })()
      .catch((err: unknown) => klog.error(`ClusterRole aggregation: ${String(err)}`))
      .finally(() => (this.pending = undefined));
  }

  private async syncAll(): Promise<void> {
    for (const role of this.storage.cache.snapshot()) {
      if (this.stopped) return;
      if (!clusterRoleSelectors(role)) continue;
      await this.sync(role.metadata.name ?? '').catch((err: unknown) =>
        klog.error(
          `ClusterRole ${role.metadata.name ?? ''}: aggregation failed: ${(err as Error)?.message ?? String(err)}`,
        ),
      );
    }
  }

  private sync(name: string): Promise<void> {
    return this.queue.run(name, async () => {
      for (let attempt = 0; ; attempt++) {
        let current: KubeObject;
        try {
          current = await this.storage.get('', name);
        } catch (err) {
          if (err instanceof StatusError && err.code === 404) return;
          throw err;
        }
        const rules = aggregatedRules(current, this.storage.cache.snapshot());
        if (!rules || deepEqual(rules, current['rules'] ?? [])) return;
        try {
          await this.storage.update('', name, { ...current, rules }, '', systemWrite());
          return;
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 409) || attempt >= CONFLICT_RETRIES) throw err;
        }
      }
    });
  }
}
