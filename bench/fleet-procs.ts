// bench/scale's fleet: N simulated nodes split over K forked processes (bench/fleet-worker.ts), each with its own
// range of node numbers, so a run is never bounded by one process's file descriptors.

import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { FleetOptions, FleetStats } from '../src/fleet/index.js';
import type { WorkerArgs, WorkerMessage, WorkerRequest } from './fleet-worker.js';

const WORKER = new URL('./fleet-worker.js', import.meta.url).pathname;

export interface ForkedFleet {
  /** The first process's data directory (its config.yaml is every node's local config). */
  readonly dataDir: string;
  readonly pids: number[];
  /** Resolves with whether every process's nodes became Ready. */
  readonly ready: Promise<boolean>;
  /** Summed over the processes: RSS and RSS per node; the largest event-loop delays. */
  stats(reset: boolean): Promise<FleetStats>;
  stop(): Promise<void>;
}

interface Worker {
  child: ChildProcess;
  nodes: number;
  next(type: WorkerMessage['type']): Promise<WorkerMessage>;
}

function startWorker(args: WorkerArgs): Worker {
  const child = fork(WORKER, [JSON.stringify(args)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, UV_THREADPOOL_SIZE: process.env['UV_THREADPOOL_SIZE'] ?? '16' },
  });
  const waiting = new Map<string, ((m: WorkerMessage) => void)[]>();
  const unclaimed = new Map<string, WorkerMessage[]>();
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`fleet process ${child.pid} exited (${code})`))),
  );
  exited.catch(() => undefined);
  child.on('message', (m: WorkerMessage) => {
    if (m.type === 'failed') process.stderr.write(`fleet process ${child.pid} failed: ${m.error}\n`);
    const w = waiting.get(m.type)?.shift();
    if (w) w(m);
    else unclaimed.set(m.type, [...(unclaimed.get(m.type) ?? []), m]);
  });
  return {
    child,
    nodes: args.options.nodes,
    next: (type) => {
      const early = unclaimed.get(type)?.shift();
      if (early) return Promise.resolve(early);
      return Promise.race([
        new Promise<WorkerMessage>((resolve) => waiting.set(type, [...(waiting.get(type) ?? []), resolve])),
        exited,
      ]);
    },
  };
}

export async function forkFleet(
  options: Omit<FleetOptions, 'onEvent'>,
  processes: number,
  logBase: string,
  readyTimeoutMs: number,
): Promise<ForkedFleet> {
  const per = Math.ceil(options.nodes / processes);
  const workers: Worker[] = [];
  for (let i = 0, first = 1; first <= options.nodes; i++, first += per) {
    const nodes = Math.min(per, options.nodes - first + 1);
    const dataDir = join(options.dataDir, `p${i}`);
    workers.push(
      startWorker({
        options: { ...options, nodes, firstIndex: first, dataDir },
        logFile: `${logBase}-${i}.log`,
        readyTimeoutMs,
      }),
    );
  }
  const started = await Promise.all(workers.map((w) => w.next('started')));
  const dataDir = (started[0] as Extract<WorkerMessage, { type: 'started' }>).dataDir;
  const ready = Promise.all(workers.map((w) => w.next('ready'))).then((all) =>
    all.every((m) => m.type === 'ready' && m.ok),
  );
  return {
    dataDir,
    pids: workers.map((w) => w.child.pid!),
    ready,
    async stats(reset) {
      const all = await Promise.all(
        workers.map(async (w) => {
          const reply = w.next('stats');
          w.child.send({ type: 'stats', reset } satisfies WorkerRequest);
          return ((await reply) as Extract<WorkerMessage, { type: 'stats' }>).stats;
        }),
      );
      const rss = all.reduce((a, s) => a + s.rssBytes, 0);
      const perNodeTotal = all.reduce((a, s, i) => a + s.rssPerNodeBytes * workers[i]!.nodes, 0);
      return {
        eventLoopDelayP50Ms: Math.max(...all.map((s) => s.eventLoopDelayP50Ms)),
        eventLoopDelayP99Ms: Math.max(...all.map((s) => s.eventLoopDelayP99Ms)),
        eventLoopDelayMaxMs: Math.max(...all.map((s) => s.eventLoopDelayMaxMs)),
        rssBytes: rss,
        heapUsedBytes: all.reduce((a, s) => a + s.heapUsedBytes, 0),
        rssPerNodeBytes: Math.round(perNodeTotal / options.nodes),
      };
    },
    async stop() {
      await Promise.all(
        workers.map(async (w) => {
          if (w.child.exitCode !== null || !w.child.connected) return;
          const done = w.next('stopped').catch(() => undefined);
          w.child.send({ type: 'stop' } satisfies WorkerRequest);
          const timer = setTimeout(() => w.child.kill('SIGKILL'), 60_000);
          await done;
          clearTimeout(timer);
        }),
      );
    },
  };
}
