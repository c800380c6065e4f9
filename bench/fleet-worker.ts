// A fleet for bench/scale in a process of its own (forked with an IPC channel), so that the benchmark's own informers,
// chart rendering and file descriptors are not the fleet's, and the fleet's memory and event-loop delay are its own.
// Messages in:  { type: 'stats', reset } | { type: 'stop' }
// Messages out: { type: 'started', dataDir, port } | { type: 'ready', ok } | { type: 'stats', stats } | { type: 'stopped' }
//               | { type: 'failed', error }

import { createWriteStream } from 'node:fs';
import { startFleet, type FleetOptions } from '../src/fleet/index.js';
import { configureLogging } from '../src/util/klog.js';

export type WorkerRequest = { type: 'stats'; reset: boolean } | { type: 'stop' };
export type WorkerMessage =
  | { type: 'started'; dataDir: string; port: number }
  | { type: 'ready'; ok: boolean }
  | { type: 'stats'; stats: import('../src/fleet/index.js').FleetStats }
  | { type: 'stopped' }
  | { type: 'failed'; error: string };

export interface WorkerArgs {
  options: Omit<FleetOptions, 'onEvent'>;
  logFile: string;
  readyTimeoutMs: number;
}

function send(m: WorkerMessage): void {
  process.send?.(m);
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]!) as WorkerArgs;
  const log = createWriteStream(args.logFile);
  configureLogging({ sink: (line) => log.write(line) });
  const fleet = await startFleet(args.options);
  send({ type: 'started', dataDir: fleet.dataDir, port: fleet.port });
  process.on('message', (m: WorkerRequest) => {
    if (m.type === 'stats') send({ type: 'stats', stats: fleet.stats(m.reset) });
    if (m.type === 'stop') {
      void fleet.stop().then(async () => {
        await new Promise((r) => log.end(r));
        send({ type: 'stopped' });
        process.disconnect();
      });
    }
  });
  // The parent going away (it crashed, or was killed) ends the fleet too.
  process.once('disconnect', () => void fleet.stop().then(() => process.exit(0)));
  send({ type: 'ready', ok: await fleet.ready(args.readyTimeoutMs) });
}

main().catch((err: unknown) => {
  send({ type: 'failed', error: (err as Error)?.stack ?? String(err) });
  process.exitCode = 1;
  process.disconnect?.();
});
