// The single writer of Node.status.config, of the ConfigOK condition and of the four kubelet_node_config_* gauges
// (upstream's status manager): a base error and condition set at boot, a sync-error override set and cleared by the
// sync loop, and a publish step that patches nodes/<name>/status only when something changed, updating the gauges
// from exactly what it published.

import { klog } from '../../util/klog.js';
import { withFailedSync, type ConfigOKCondition } from './configok.js';
import { metricLabels, type NodeConfigSource } from './source.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import { gauge, type MetricsRegistry } from '../node/metrics.js';

/** status.config's fields as the controller sets them: undefined clears one. */
type StatusFields = { [K in keyof NodeConfigStatus]?: NodeConfigStatus[K] | undefined };

export interface NodeConfigStatus {
  assigned?: NodeConfigSource;
  active?: NodeConfigSource;
  lastKnownGood?: NodeConfigSource;
  error?: string;
}

/** The gauges, as the controller registers them (prom-client Gauge-shaped). */
export interface ConfigGauges {
  assigned: LabelledGauge;
  active: LabelledGauge;
  lastKnownGood: LabelledGauge;
  error: { set(value: number): void };
}

export interface LabelledGauge {
  set(labels: Record<string, string>, value: number): void;
  reset(): void;
}

/** Upstream's kubelet_node_config_* gauges (pkg/kubelet/metrics/metrics.go), registered in `registry`. */
export function configGauges(registry: MetricsRegistry): ConfigGauges {
  const labels = ['node_config_source', 'node_config_uid', 'node_config_resource_version', 'node_config_kubelet_key'];
  const vec = (name: string, help: string) => {
    const g = gauge(registry, name, help, labels);
    return { set: (l: Record<string, string>, v: number) => g.set(l, v), reset: () => g.reset() };
  };
  const err = gauge(
    registry,
    'kubelet_node_config_error',
    'This metric is true (1) if the node is experiencing a configuration-related error, false (0) otherwise.',
  );
  return {
    assigned: vec(
      'kubelet_node_config_assigned',
      "The node's understanding of intended config. The count is always 1.",
    ),
    active: vec('kubelet_node_config_active', 'The config source the node is actively using. The count is always 1.'),
    lastKnownGood: vec(
      'kubelet_node_config_last_known_good',
      'The config source the node will fall back to when it encounters certain errors. The count is always 1.',
    ),
    error: { set: (v: number) => err.set(v) },
  };
}

export interface StatusPublisher {
  /** Patch nodes/<name>/status with this status.config (the whole object; absent fields removed). */
  publish(config: NodeConfigStatus): Promise<void>;
}

function logPrefix(msg: string): string {
  return `kubelet config controller: ${msg}`;
}

export class ConfigStatusManager {
  /** What the controller set; an undefined field is one it cleared, left out of what is published. */
  private status: StatusFields = {};
  private override = '';
  private configOK: ConfigOKCondition | undefined;
  /** The 1.8 wording of the sync failure behind `override`, for the condition. */
  private syncReason = '';
  /** When the condition last changed (its heartbeat: 1.8 stamped the condition each time it was set). */
  private conditionChangedAt = 0;
  private readonly conditionListeners: (() => void)[] = [];
  private dirty = true;
  private lastPublished: string | undefined;
  private publishing = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly gauges: ConfigGauges,
    private readonly retryMs = 2_000,
    private readonly clock: Clock = systemClock,
  ) {}

  private publisher: StatusPublisher | undefined;

  setAssigned(src: NodeConfigSource | undefined): void {
    this.update({ assigned: src });
  }
  setActive(src: NodeConfigSource | undefined): void {
    this.update({ active: src });
  }
  setLastKnownGood(src: NodeConfigSource | undefined): void {
    this.update({ lastKnownGood: src });
  }
  /** The base error, set at boot. */
  setError(err: string): void {
    this.update({ error: err });
  }
  /** The ConfigOK condition of the boot decision. */
  setConfigOK(c: ConfigOKCondition): void {
    this.changeCondition(() => (this.configOK = c));
  }
  /**
   * A sync-time error that hides the base error until cleared with ''; `conditionReason` is how the ConfigOK
   * condition words it (upstream 1.8's reasons), cleared with it.
   */
  setErrorOverride(err: string, conditionReason = ''): void {
    const reason = err === '' ? '' : conditionReason || err;
    if (this.override === err && this.syncReason === reason) return;
    this.override = err;
    this.changeCondition(() => (this.syncReason = reason));
    this.markDirty();
  }

  /** The ConfigOK condition now (undefined before the boot decision), and when it last changed (wall ms). */
  condition(): { condition: ConfigOKCondition; changedAt: number } | undefined {
    if (!this.configOK) return undefined;
    return { condition: withFailedSync(this.configOK, this.syncReason), changedAt: this.conditionChangedAt };
  }

  /** Called after each change of the condition (the node status reporter writes it). */
  onConditionChange(listener: () => void): void {
    this.conditionListeners.push(listener);
  }

  private changeCondition(change: () => void): void {
    const before = JSON.stringify(this.condition()?.condition);
    change();
    if (JSON.stringify(this.condition()?.condition) === before) return;
    this.conditionChangedAt = this.clock.now().getTime();
    for (const l of this.conditionListeners) l();
  }

  private update(patch: StatusFields): void {
    this.status = { ...this.status, ...patch };
    this.markDirty();
  }

  /** What would be published now. */
  current(): NodeConfigStatus {
    const out: NodeConfigStatus = {};
    if (this.status.assigned) out.assigned = this.status.assigned;
    if (this.status.active) out.active = this.status.active;
    if (this.status.lastKnownGood) out.lastKnownGood = this.status.lastKnownGood;
    const err = this.override || this.status.error || '';
    if (err) out.error = err;
    return out;
  }

  /** Start publishing through `publisher` (the first publish always happens, as upstream primes its dirty flag). */
  start(publisher: StatusPublisher): void {
    this.publisher = publisher;
    this.markDirty();
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /** A failed publish waits for its retry timer; call this when the cause has likely gone (the Node now exists). */
  retryNow(): void {
    if (!this.retryTimer) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    void this.sync();
  }

  /** Publishes the status again even if unchanged: the object that carries it was made again. */
  republish(): void {
    this.lastPublished = undefined;
    this.markDirty();
  }

  /** Resolves once everything marked so far has been published; while stopped, not started or failing, it waits. */
  flushed(): Promise<void> {
    if (!this.dirty && !this.publishing) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  private markDirty(): void {
    this.dirty = true;
    this.updateGauges(this.current());
    if (this.publisher && !this.publishing && !this.stopped) {
      if (this.retryTimer) {
        clearTimeout(this.retryTimer);
        this.retryTimer = undefined;
      }
      setImmediate(() => void this.sync());
    }
  }

  private updateGauges(s: NodeConfigStatus): void {
    const set = (g: LabelledGauge, src: NodeConfigSource | undefined) => {
      try {
        const labels = metricLabels(src);
        g.reset();
        g.set(labels, 1);
      } catch (err) {
        klog.error(logPrefix(`failed to update metrics, error: ${errorMessage(err)}`));
      }
    };
    set(this.gauges.assigned, s.assigned);
    set(this.gauges.active, s.active);
    set(this.gauges.lastKnownGood, s.lastKnownGood);
    this.gauges.error.set(s.error ? 1 : 0);
  }

  private async sync(): Promise<void> {
    if (!this.dirty || this.publishing || this.stopped || !this.publisher) return;
    this.publishing = true;
    this.dirty = false;
    const snapshot = this.current();
    const key = JSON.stringify(snapshot);
    try {
      if (key !== this.lastPublished) {
        await this.publisher.publish(snapshot);
        this.lastPublished = key;
      }
    } catch (err) {
      klog.error(logPrefix(`failed to patch node status, error: ${errorMessage(err)}`));
      this.dirty = true;
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        void this.sync();
      }, this.retryMs);
    } finally {
      this.publishing = false;
    }
    if (this.dirty && !this.retryTimer) return this.sync();
    if (!this.dirty) for (const w of this.waiters.splice(0)) w();
  }
}
