// The `dkc rollout` subcommands: each one connects as kubectl would, makes its requests, prints, and returns the exit
// code — 0 done (status: Succeeded), 1 a rollout Halted or Reverted, 2 not finished in time, and for an error the code
// the CLI gives it (Io.exitCodeOfError). Errors are one line on stderr.

import { homedir } from 'node:os';
import { RestClient } from '../../client/index.js';
import { loadClientConfig } from '../../client/loadingrules.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { applySpecChange, SPEC_CHANGES, type SpecCommand } from './actions.js';
import {
  checkConfigMap,
  checkNodes,
  createRollout,
  getRollout,
  kubeletReports,
  listRollouts,
  matchingNodes,
} from './api.js';
import { previewLines } from './preview.js';
import { errorLine, messages, progress, RolloutError } from './errors.js';
import { follow } from './follow.js';
import { exitCodeFor, progressBar, progressLines } from './render.js';
import { buildRollout, parseConfigMapRef, parseNodeSelector, parseTimeout, type StartFlags } from './spec.js';
import { renderTable } from './table.js';
import type { RolloutStatus } from '../../api/dkc/rollout.js';
import type { NodeConfigRollout } from './types.js';

export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Draw a live progress bar (stdout is a terminal). */
  tty: boolean;
  clock: Clock;
  env: Readonly<Record<string, string | undefined>>;
  /** The exit code a failure ends the command with (the CLI chooses it: src/cli/exit.ts). */
  exitCodeOfError(err: unknown): number;
}

export interface ConnectionFlags {
  kubeconfig?: string;
  context?: string;
}

/** 0, 1 and 2 as above, or an error's exit code. */
export type ExitCode = number;

export const EXIT_TIMEOUT = 2;

export function processIo(exitCodeOfError: (err: unknown) => number): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    tty: process.stdout.isTTY === true,
    clock: systemClock,
    env: process.env,
    exitCodeOfError,
  };
}

async function connect(io: Io, flags: ConnectionFlags): Promise<RestClient> {
  const config = await loadClientConfig({
    explicitPath: flags.kubeconfig,
    env: io.env['KUBECONFIG'],
    home: homedir(),
    context: flags.context,
  });
  return new RestClient(config);
}

/** Runs `body` with a client, turning any failure into its one line on stderr and its exit code. */
async function withClient(
  io: Io,
  flags: ConnectionFlags,
  body: (client: RestClient) => Promise<ExitCode>,
): Promise<ExitCode> {
  let client: RestClient | undefined;
  try {
    client = await connect(io, flags);
    return await body(client);
  } catch (err) {
    io.stderr.write(errorLine(err) + '\n');
    return io.exitCodeOfError(err);
  } finally {
    client?.close();
  }
}

export async function start(io: Io, name: string, flags: StartFlags & ConnectionFlags): Promise<ExitCode> {
  let rollout: NodeConfigRollout;
  try {
    rollout = buildRollout(name, flags);
  } catch (err) {
    io.stderr.write(errorLine(err) + '\n');
    return io.exitCodeOfError(err);
  }
  return withClient(io, flags, async (client) => {
    await checkConfigMap(client, rollout.spec.configSource!.configMap!);
    await checkNodes(client, flags.selector ?? '');
    const created = await createRollout(client, rollout);
    io.stdout.write(progress.created(created.metadata.name) + '\n');
    return 0;
  });
}

export interface PlanFlags extends ConnectionFlags {
  configmap: string;
  key?: string;
  selector?: string;
}

/**
 * What a rollout of the ConfigMap would do, before one starts: the nodes it would take, and those that would not run
 * it as rolled out (a local drop-in their node daemon reports overrides a field of it). Creates nothing.
 */
export async function plan(io: Io, flags: PlanFlags): Promise<ExitCode> {
  let ref: ReturnType<typeof parseConfigMapRef>;
  try {
    ref = parseConfigMapRef(flags.configmap, flags.key);
    parseNodeSelector(flags.selector ?? '');
  } catch (err) {
    io.stderr.write(errorLine(err) + '\n');
    return io.exitCodeOfError(err);
  }
  return withClient(io, flags, async (client) => {
    const cm = await checkConfigMap(client, ref);
    const nodes = await matchingNodes(client, flags.selector ?? '');
    const reports = await kubeletReports(client);
    const text = cm.data?.[ref.kubeletConfigKey] ?? '';
    for (const line of previewLines({ ref, text, nodes, reports })) io.stdout.write(line + '\n');
    return 0;
  });
}

/** Prints lines above a progress bar that stays on the terminal's last line, redrawn only when it changes. */
class StatusPrinter {
  private last: RolloutStatus | undefined;
  private first = true;
  private bar = '';
  constructor(
    private readonly io: Io,
    private readonly name: string,
  ) {}

  show(status: RolloutStatus | undefined, live: boolean): void {
    const lines = progressLines(this.name, this.last, status, this.first);
    this.first = false;
    this.last = status;
    const bar = live && this.io.tty ? progressBar(status) : '';
    if (lines.length === 0 && bar === this.bar) return;
    if (this.bar) this.io.stdout.write('\r\x1b[K');
    for (const l of lines) this.io.stdout.write(l + '\n');
    this.bar = bar;
    if (bar) this.io.stdout.write(bar);
  }

  /** Removes the bar before the process writes anything else. */
  done(): void {
    if (this.bar) this.io.stdout.write('\r\x1b[K');
    this.bar = '';
  }
}

export interface StatusFlags extends ConnectionFlags {
  watch?: boolean;
  timeout?: string;
}

export async function status(io: Io, name: string, flags: StatusFlags): Promise<ExitCode> {
  let timeoutMs: number;
  try {
    timeoutMs = parseTimeout('--timeout', flags.timeout ?? '10m');
  } catch (err) {
    io.stderr.write(errorLine(err) + '\n');
    return io.exitCodeOfError(err);
  }
  return withClient(io, flags, async (client) => {
    const printer = new StatusPrinter(io, name);
    const current = await getRollout(client, name);
    const done = exitCodeFor(current);
    printer.show(current.status, flags.watch === true && done === undefined);
    if (done !== undefined) return done;
    if (!flags.watch) return EXIT_TIMEOUT;
    let latest = current;
    const end = await follow({
      client,
      name,
      timeoutMs,
      clock: io.clock,
      observe: (obj) => {
        latest = obj;
        printer.show(obj.status, exitCodeFor(obj) === undefined);
      },
    });
    printer.done();
    if (end === 'deleted') throw new RolloutError('DKC_ROLLOUT_DELETED', messages.rolloutDeleted(name));
    if (end === 'timeout') {
      io.stderr.write(`error: ${messages.timedOut}\n`);
      return EXIT_TIMEOUT;
    }
    return exitCodeFor(latest) ?? EXIT_TIMEOUT;
  });
}

export async function changeSpec(
  io: Io,
  command: SpecCommand,
  name: string,
  flags: ConnectionFlags,
): Promise<ExitCode> {
  const done = SPEC_CHANGES[command][1];
  return withClient(io, flags, async (client) => {
    const patched = await applySpecChange(client, command, name);
    io.stdout.write(progress.patched(patched.metadata.name, done) + '\n');
    return 0;
  });
}

export async function list(io: Io, flags: ConnectionFlags): Promise<ExitCode> {
  return withClient(io, flags, async (client) => {
    const items = await listRollouts(client);
    if (items.length === 0) io.stderr.write(progress.noResources + '\n');
    else io.stdout.write(renderTable(items, io.clock.now().getTime()));
    return 0;
  });
}
