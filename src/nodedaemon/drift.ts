// What the daemon sees of the kubelet's files besides its own writes. Two things can make the kubelet run something
// other than what status.config names: another hand editing the daemon's own file (the kubelet runs the edit from its
// next restart on), and a node-local drop-in sorting after the daemon's that sets a field the assignment sets (the
// kubelet's merge lets the later file win). The daemon watches the directories (fs.watch, with a periodic check for
// what a watch misses: another mount, an editor's rename, a watch that could not start), puts its own file back, and
// reports both on its NodeConfig (status.kubelet.lastDrift, status.kubelet.localOverrides), in an event and in its
// metrics. The decisions are pure; FileWatch and KubeletReporter are the I/O at the edges.

import { watch, type FSWatcher } from 'node:fs';
import type { KubeletVersion, Layer } from '../kubeletconfig/index.js';
import type { KubeletReport, LocalOverride } from '../api/dkc/nodeconfig.js';
import type { Journal } from './decide.js';
import { gauge, type Gauge, type MetricsRegistry } from '../agent/node/metrics.js';

type Obj = Record<string, unknown>;

/** The leaves a config sets, by dotted path (a map's keys are leaves of their own, as the merge treats them). */
function leaves(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Obj)) leaves(v, prefix === '' ? k : `${prefix}.${k}`, out);
    return;
  }
  if (prefix !== 'apiVersion' && prefix !== 'kind') out.set(prefix, JSON.stringify(value));
}

function setFields(kubelet: KubeletVersion, layer: Layer): Map<string, string> | undefined {
  try {
    const out = new Map<string, string>();
    leaves(kubelet.toJSONObject(kubelet.mergeLayers([layer]).config), '', out);
    return out;
  } catch {
    return undefined; // a file that does not decode is the validation's to report, not an override
  }
}

export interface OverrideInput {
  mode: 'dropin' | 'replace';
  /** The assigned payload. */
  payload: Layer;
  /** The other drop-ins of --config-dir, in the kubelet's order (the daemon's own excluded). */
  dropIns: readonly { fileName: string; layer: Layer }[];
  dropInName: string;
}

/**
 * Each field the assignment sets that a local drop-in merged after it sets to another value: the kubelet runs that
 * file's value. In drop-in mode, the files sorting after the daemon's; in replace mode the assignment is the --config
 * file, under every drop-in. The file named is the last to set the field (the one whose value wins). Pure.
 */
export function localOverrides(kubelet: KubeletVersion, o: OverrideInput): LocalOverride[] {
  const assigned = setFields(kubelet, o.payload);
  if (!assigned) return [];
  const winner = new Map<string, { file: string; value: string }>();
  for (const d of o.dropIns) {
    if (o.mode === 'dropin' && !(d.fileName > o.dropInName)) continue;
    for (const [field, value] of setFields(kubelet, d.layer) ?? []) {
      if (assigned.has(field)) winner.set(field, { file: d.fileName, value });
    }
  }
  const out: LocalOverride[] = [];
  for (const [field, value] of assigned) {
    const w = winner.get(field);
    if (w && w.value !== value) out.push({ field, file: w.file });
  }
  return out.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

/**
 * Whether the daemon's own file was changed by another hand: the journal says the kubelet was restarted on what the
 * daemon wrote (so no write of its own is under way) and the file no longer holds it. Pure.
 */
export function isDrift(o: { written: string; onDisk: string; journal: Journal | undefined }): boolean {
  return o.journal !== undefined && o.journal.restarted && o.journal.digest === o.written && o.onDisk !== o.written;
}

/** The merge patch of status.kubelet with only the daemon's keys (the others' keys are left as they are). */
export function reportPatch(report: Pick<KubeletReport, 'localOverrides' | 'lastDrift'>): unknown {
  return {
    status: {
      kubelet: {
        localOverrides: report.localOverrides?.length ? report.localOverrides : null,
        lastDrift: report.lastDrift ?? null,
      },
    },
  };
}

/**
 * Watches directories for any change (fs.watch where it works) and checks on a period besides; `check` runs at most
 * once at a time, a burst of events coalesced into one run after `debounceMs`.
 */
export class FileWatch {
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly check: () => Promise<void>,
    private readonly o: { dirs: readonly string[]; periodMs: number; debounceMs?: number },
  ) {}

  start(): void {
    for (const dir of new Set(this.o.dirs)) {
      try {
        const w = watch(dir, { persistent: false }, () => this.poke());
        w.on('error', () => w.close()); // the directory went away: the periodic check goes on
        this.watchers.push(w);
      } catch {
        // No such directory yet, or no watch here: the periodic check covers it.
      }
    }
    this.timer = setInterval(() => this.poke(0), this.o.periodMs);
    this.timer.unref();
  }

  /** Schedules a check (soon, coalescing a burst). */
  poke(delayMs = this.o.debounceMs ?? 50): void {
    if (this.stopped || this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      void this.run();
    }, delayMs);
  }

  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      await this.check();
    } finally {
      this.running = false;
      if (this.again && !this.stopped) {
        this.again = false;
        this.poke();
      }
    }
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers) w.close();
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
  }
}

/** Publishes the daemon's part of status.kubelet when it changes; a failed write is tried again on the next set(). */
export class KubeletReporter {
  private report: Pick<KubeletReport, 'localOverrides' | 'lastDrift'> = {};
  private published: string | undefined;
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly publish: ((patch: unknown) => Promise<void>) | undefined) {}

  current(): Pick<KubeletReport, 'localOverrides' | 'lastDrift'> {
    return this.report;
  }

  /** Merges `part` into the report and publishes it if it differs from what was last published. */
  set(part: Pick<KubeletReport, 'localOverrides' | 'lastDrift'>): Promise<void> {
    this.report = { ...this.report, ...part };
    return this.flush();
  }

  /** Publishes again even when unchanged (the object was re-created). */
  republish(): Promise<void> {
    this.published = undefined;
    return this.flush();
  }

  private flush(): Promise<void> {
    this.sending = this.sending.then(async () => {
      const patch = reportPatch(this.report);
      const key = JSON.stringify(patch);
      if (!this.publish || key === this.published) return;
      try {
        await this.publish(patch);
        this.published = key;
      } catch {
        this.published = undefined; // tried again with the next check
      }
    });
    return this.sending;
  }
}

/** The daemon's gauges for what this module finds. */
export function driftGauges(registry: MetricsRegistry): { drifts: Gauge; localOverrides: Gauge } {
  return {
    drifts: gauge(
      registry,
      'dkc_node_daemon_drifts',
      'How many times the daemon found its kubelet file changed by another hand, and put it back, since it started.',
    ),
    localOverrides: gauge(
      registry,
      'dkc_node_daemon_local_overrides',
      'How many fields of the running assignment a node-local drop-in merged after it overrides.',
    ),
  };
}
