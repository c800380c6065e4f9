// The daemon's part of NodeConfig.status.kubelet: the restarts of the kubelet it did not cause. It is written with a
// JSON merge patch naming only its own keys (null removes one), so the other parts of status.kubelet, which other code
// of the daemon writes, are never touched. Only what changed is sent; a failed write is retried, and a newer value
// replaces one still waiting.

import { NODE_CONFIGS_PATH, nodeConfigName } from '../api/dkc/nodeconfig.js';
import type { RestClient } from '../client/index.js';
import { logError } from '../agent/dynamicconfig/log.js';
import { errorMessage } from '../util/errors.js';

export type ReportFields = Record<string, number | string | null>;

export class KubeletReportPublisher {
  private wanted: ReportFields | undefined;
  private published = '';
  private busy = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly client: Pick<RestClient, 'patch'>,
    private readonly nodeName: string,
    private readonly retryMs = 2_000,
  ) {}

  /** Sets these keys of status.kubelet (null: absent). */
  set(fields: ReportFields): void {
    this.wanted = { ...this.wanted, ...fields };
    void this.flush();
  }

  /** Writes what it holds again (the NodeConfig was made anew, without it). */
  republish(): void {
    this.published = '';
    void this.flush();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async flush(): Promise<void> {
    if (this.busy || this.stopped || !this.wanted) return;
    const body = this.wanted;
    const key = JSON.stringify(body);
    if (key === this.published) return;
    this.busy = true;
    try {
      await this.client.patch(
        `${NODE_CONFIGS_PATH}/${encodeURIComponent(nodeConfigName(this.nodeName))}/status`,
        'merge',
        {
          status: { kubelet: body },
        },
      );
      this.published = key;
    } catch (err) {
      logError(`failed to patch NodeConfig status.kubelet, error: ${errorMessage(err)}`);
      if (!this.stopped && !this.timer)
        this.timer = setTimeout(() => {
          this.timer = undefined;
          void this.flush();
        }, this.retryMs);
      return;
    } finally {
      this.busy = false;
    }
    if (JSON.stringify(this.wanted) !== this.published) void this.flush();
  }
}
