// The daemon's checks of the kubelet's files between its own writes (drift.ts decides): its own file put back when
// another hand changed it, and the fields a later local drop-in overrides, both reported — the log, a Warning event,
// the gauges and the daemon's keys of status.kubelet on the NodeConfig. Run serialised with the daemon's writes.

import { resolve } from 'node:path';
import { NODE_CONFIGS_PATH, nodeConfigName, type LocalOverride } from '../api/dkc/nodeconfig.js';
import type { RestClient } from '../client/index.js';
import type { KubeletVersion } from '../kubeletconfig/index.js';
import type { Clock } from '../util/clock.js';
import { readDropIns } from '../agent/configdir.js';
import { logWarning } from '../agent/dynamicconfig/log.js';
import type { MetricsRegistry } from '../agent/node/metrics.js';
import { driftGauges, isDrift, KubeletReporter, localOverrides } from './drift.js';
import { digestOf, setKubeletFile, type DaemonFiles } from './files.js';
import type { NodeDaemonFlags } from './flags.js';
import { messages } from './messages.js';
import { formatTime } from '../util/clock.js';

/** The Warning event of the daemon's own file found changed by another hand. */
export const DRIFT_REASON = 'KubeletConfigDrift';

/** What the daemon last set its kubelet file to, with the payload under its header. */
export interface Written {
  path: string;
  digest: string;
  bytes: Uint8Array;
  mode: number;
  payload: Uint8Array;
}

export interface FileCheckDeps {
  flags: Pick<NodeDaemonFlags, 'applyAs' | 'kubeletConfigDir' | 'dropInName'>;
  files: DaemonFiles;
  kubelet(): KubeletVersion;
  registry: MetricsRegistry;
  clock: Clock;
  event(reason: string, message: string): void;
}

export class FileChecks {
  /** Set by the daemon each time it decides its file (undefined: the node's own files, nothing of its own). */
  written: Written | undefined;
  private reporter = new KubeletReporter(undefined);
  private readonly gauges;

  constructor(private readonly d: FileCheckDeps) {
    this.gauges = driftGauges(d.registry);
  }

  /** Where status.kubelet is published: the node's NodeConfig (the Node channel has no place for it). */
  publishThrough(client: Pick<RestClient, 'patch'>, nodeName: string): void {
    const path = `${NODE_CONFIGS_PATH}/${encodeURIComponent(nodeConfigName(nodeName))}/status`;
    this.reporter = new KubeletReporter(async (patch) => {
      await client.patch(path, 'merge', patch);
    });
  }

  /** The NodeConfig was made again: its report too. */
  republish(): void {
    void this.reporter.republish();
  }

  async check(): Promise<void> {
    const w = this.written;
    if (!w) {
      this.gauges.localOverrides.set(0);
      await this.reporter.set({ localOverrides: [] });
      return;
    }
    const onDisk = digestOf(await this.d.files.current(w.path));
    if (isDrift({ written: w.digest, onDisk, journal: await this.d.files.journal() })) {
      await setKubeletFile(w.path, w.bytes, w.mode);
      this.reportDrift(w.path, true);
    }
    const overrides = await this.overrides(w);
    const before = JSON.stringify(this.reporter.current().localOverrides ?? []);
    if (JSON.stringify(overrides) !== before && overrides.length > 0)
      logWarning(messages.localOverrides(overrides.map((o) => `${o.field} (${o.file})`).join(', ')));
    this.gauges.localOverrides.set(overrides.length);
    await this.reporter.set({ localOverrides: overrides });
  }

  private async overrides(w: Written): Promise<LocalOverride[]> {
    const { flags } = this.d;
    try {
      const others = await readDropIns(resolve(flags.kubeletConfigDir), new Set([w.path]));
      return localOverrides(this.d.kubelet(), {
        mode: flags.applyAs,
        payload: { bytes: w.payload, name: w.path },
        dropIns: others.map((d) => ({ fileName: d.relative, layer: { bytes: d.bytes, name: d.path } })),
        dropInName: flags.dropInName,
      });
    } catch {
      return []; // a drop-in that cannot be read: the kubelet will not start on it either, and validation says so
    }
  }

  /** Another hand changed the daemon's file: a log line, a Warning event, the gauge, status.kubelet.lastDrift. */
  reportDrift(path: string, putBack: boolean): void {
    const time = formatTime(this.d.clock.now());
    logWarning(messages.drift(path, putBack));
    this.gauges.drifts.inc();
    void this.reporter.set({ lastDrift: { time, file: path } });
    this.d.event(DRIFT_REASON, messages.drift(path, putBack));
  }
}
