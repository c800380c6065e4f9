// One simulated node: the agent's lifecycle (runAgent) run again and again in this process. Where `dkc agent` exits 0
// to run a new config and its supervisor starts it again, a simulated node tears its instance down and starts the
// next one here, paced by the supervisor's own restart rule; a start that fails counts as a crash, as an agent's exit 1
// does. Everything else (registration, status and Lease, the dynamic config controller with its checkpoints, boot
// decision, trial and crash-loop accounting) is the agent's own code, unchanged.

import { runAgent, type AgentExit, type RunningAgent } from '../agent/agent.js';
import type { AgentHost } from '../agent/host.js';
import { clip } from '../util/clip.js';
import { RestartBackoff, type BackoffOptions } from '../supervisor/backoff.js';
import { klog } from '../util/klog.js';
import { messages } from './errors.js';
import { errorMessage } from '../util/errors.js';
import { systemClock } from '../util/clock.js';

export type NodeEvent =
  | { type: 'start'; node: string; instance: number }
  | { type: 'exit'; node: string; instance: number; why: AgentExit }
  | { type: 'failed'; node: string; error: string };

export interface SimulatedNodeOptions {
  name: string;
  address: string;
  /** The node's directory (<dataDir>/<name>). */
  dir: string;
  /** `dkc agent`'s flags for this node. */
  argv: readonly string[];
  host: AgentHost;
  backoff?: BackoffOptions;
  onEvent?: (e: NodeEvent) => void;
}

export class SimulatedNode {
  readonly name: string;
  readonly address: string;
  readonly dir: string;
  /** Instances started so far (1 after the first start); the fleet's counterpart of a new process id. */
  instance = 0;
  /** Starts that failed (an agent process would have exited 1). */
  failures = 0;
  lastError: string | undefined;
  private current: RunningAgent | undefined;
  private loop: Promise<void> | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;

  constructor(private readonly options: SimulatedNodeOptions) {
    this.name = options.name;
    this.address = options.address;
    this.dir = options.dir;
  }

  /** The running instance, if one is up. */
  get agent(): RunningAgent | undefined {
    return this.current;
  }

  /** Starts the node's first instance; resolves once it started or its first start failed. */
  start(): Promise<void> {
    let first!: () => void;
    const started = new Promise<void>((r) => (first = r));
    this.loop ??= this.run(first);
    return started;
  }

  /** Stops the running instance and the restart loop. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.current?.stop();
    await this.loop;
  }

  private emit(e: NodeEvent): void {
    try {
      this.options.onEvent?.(e);
    } catch (err) {
      klog.error(`fleet: an event listener failed: ${errorMessage(err)}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }

  private async run(firstStarted: () => void): Promise<void> {
    const backoff = new RestartBackoff(this.options.backoff ?? {});
    while (!this.stopping) {
      const began = systemClock.monotonicMs();
      let agent: RunningAgent;
      try {
        agent = await runAgent(this.options.argv, this.options.host);
      } catch (err) {
        this.failures++;
        this.lastError = clip(errorMessage(err));
        klog.error(messages.nodeStartFailed(this.name, this.lastError));
        this.emit({ type: 'failed', node: this.name, error: this.lastError });
        firstStarted();
        const now = systemClock.monotonicMs();
        await this.sleep(backoff.afterExit('crash', now - began, now).delayMs);
        continue;
      }
      const instance = ++this.instance;
      this.current = agent;
      this.emit({ type: 'start', node: this.name, instance });
      firstStarted();
      if (this.stopping) await agent.stop();
      const why = await agent.done;
      this.current = undefined;
      this.emit({ type: 'exit', node: this.name, instance, why });
      if (why === 'stopped') break;
      const now = systemClock.monotonicMs();
      if (why === 'failed') {
        // The instance could not go on (its config channel, say): as an agent's exit 1, a crash.
        this.failures++;
        this.lastError = agent.failure;
        this.emit({ type: 'failed', node: this.name, error: agent.failure ?? '' });
        await this.sleep(backoff.afterExit('crash', now - began, now).delayMs);
        continue;
      }
      await this.sleep(backoff.afterExit('clean', now - began, now).delayMs);
    }
    firstStarted();
  }
}
