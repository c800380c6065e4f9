// `dkc config diff`, `lint` and `render`: each reads its sources, runs the KubeletConfiguration library's pure
// functions, prints, and returns the exit code. diff answers as diff(1) does — 0 equal, 1 different, 2 trouble;
// lint 0 clean, 1 errors (and with --strict, warnings or a disruptive or dangerous change); render 0. A failure of
// lint or render exits with the code the CLI gives the error (Io.exitCodeOfError).

import { homedir } from 'node:os';
import { RestClient } from '../../client/index.js';
import { loadClientConfig } from '../../client/loadingrules.js';
import {
  KubeletConfigError,
  kubeletVersion,
  LayerError,
  safetyOf,
  type FieldChange,
  type KubeletConfiguration,
  type KubeletVersion,
  type Layer,
} from '../../kubeletconfig/index.js';
import { configChanges } from '../../nodepolicy/flags.js';
import { errorLine, messages } from './errors.js';
import { diffJSON, diffLines, lintJSON, lintLines, type ClassifiedChange, type LintReport } from './format.js';
import { parseSource, readDropIns, readSource, type ClientSource, type SourceLayer } from './sources.js';

export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** stdout is a terminal: colour the output. */
  tty: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** The exit code a failure ends the command with (the CLI chooses it: src/cli/exit.ts). */
  exitCodeOfError(err: unknown): number;
}

export interface ConnectionFlags {
  kubeconfig?: string;
  context?: string;
}

export interface VersionFlags {
  /** The kubelet minor to act as (`1.31`); the newest the library knows when absent. */
  kubeletVersion?: string;
}

export interface DiffFlags extends ConnectionFlags, VersionFlags {
  output?: 'json';
}

export interface LintFlags extends ConnectionFlags, VersionFlags {
  against?: string;
  strict?: boolean;
  output?: 'json';
}

export interface RenderFlags extends ConnectionFlags, VersionFlags {
  output?: 'yaml' | 'json';
}

/** The codes above, or an error's exit code. */
export type ExitCode = number;

export function processIo(exitCodeOfError: (err: unknown) => number): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    tty: process.stdout.isTTY === true,
    env: process.env,
    exitCodeOfError,
  };
}

/** The API client, connected as kubectl would on first use only: files alone need no kubeconfig. */
function lazyClient(io: Io, flags: ConnectionFlags): { get: ClientSource; close(): void } {
  let client: Promise<RestClient> | undefined;
  return {
    get: () =>
      (client ??= loadClientConfig({
        explicitPath: flags.kubeconfig,
        env: io.env['KUBECONFIG'],
        home: homedir(),
        context: flags.context,
      }).then((config) => new RestClient(config))),
    close: () =>
      void client?.then(
        (c) => c.close(),
        () => undefined,
      ),
  };
}

/** Runs `body`, turning a failure into its line on stderr and `failure` as the exit code (else the error's own). */
async function guarded(
  io: Io,
  flags: ConnectionFlags,
  failure: ExitCode | undefined,
  body: (client: ClientSource) => Promise<ExitCode>,
): Promise<ExitCode> {
  const conn = lazyClient(io, flags);
  try {
    return await body(conn.get);
  } catch (err) {
    io.stderr.write((err instanceof LayerError ? messages.problem(err.source, err.message) : errorLine(err)) + '\n');
    return failure ?? io.exitCodeOfError(err);
  } finally {
    conn.close();
  }
}

/** Decode and defaults, as the kubelet loads a config; decode warnings go to stderr. Throws LayerError. */
function loadLayer(io: Io, layer: Layer, kv: KubeletVersion): KubeletConfiguration {
  try {
    const r = kv.load(
      layer.bytes,
      layer.dir === undefined ? { source: layer.name } : { dir: layer.dir, source: layer.name },
    );
    for (const w of r.warnings) io.stderr.write(messages.warning(layer.name, w.message) + '\n');
    return r.config;
  } catch (e) {
    if (e instanceof KubeletConfigError) throw new LayerError(layer.name, e);
    throw e;
  }
}

/**
 * The config flags that hold fields on both sides: a node's, when one side is a node and the other is what it could
 * be given (two nodes each run their own flags already: their /configz answers are compared as they are).
 */
function heldBy(a: SourceLayer, b: SourceLayer): SourceLayer['flags'] {
  return a.flags && b.flags ? undefined : (a.flags ?? b.flags);
}

/** The kubelet to read both sides as: the one asked for, else a node side's own (as its policy compares), else the newest. */
function kubeletOf(asked: string | undefined, ...sides: (SourceLayer | undefined)[]): KubeletVersion {
  if (asked !== undefined) return kubeletVersion(asked);
  return sides.find((s) => s?.kubelet)?.kubelet ?? kubeletVersion();
}

export async function diff(io: Io, a: string, b: string, flags: DiffFlags): Promise<ExitCode> {
  return guarded(io, flags, 2, async (client) => {
    const [la, lb] = await Promise.all([readSource(parseSource(a), client), readSource(parseSource(b), client)]);
    const kv = kubeletOf(flags.kubeletVersion, la, lb);
    const changes = configChanges(loadLayer(io, la, kv), loadLayer(io, lb, kv), heldBy(la, lb), kv.schema());
    if (flags.output === 'json') io.stdout.write(diffJSON(la.name, lb.name, changes));
    else for (const line of diffLines(changes, io.tty)) io.stdout.write(line + '\n');
    return changes.length === 0 ? 0 : 1;
  });
}

/** Everything `dkc config validate` reports about a layer: decode, defaults, validation and the start-up checks. */
export function checkLayer(
  layer: Layer,
  kv: KubeletVersion = kubeletVersion(),
): { errors: string[]; warnings: string[] } {
  const r = kv.effectiveConfig({ file: { bytes: layer.bytes, dir: layer.dir ?? '', name: layer.name }, flags: [] });
  const warnings = r.warnings.map((w) => w.message);
  if (!r.ok) return { errors: r.errors, warnings };
  const startup = kv.validateStartup(r.config, { featureGates: r.featureGates });
  return { errors: startup.errors, warnings: [...warnings, ...startup.warnings] };
}

/** Changes, each with its field's class and reason. */
export function classify(changes: readonly FieldChange[]): ClassifiedChange[] {
  return changes.map((c) => {
    const s = safetyOf(c.path);
    return s ? { ...c, class: s.class, reason: s.reason } : c;
  });
}

/** Whether a lint report fails: on errors, and with --strict also on warnings and on changes that are not safe. */
export function lintFails(report: LintReport, strict: boolean): boolean {
  if (report.errors.length > 0) return true;
  return strict && (report.warnings.length > 0 || report.changes.some((c) => c.class !== 'safe'));
}

export async function lint(io: Io, source: string, flags: LintFlags): Promise<ExitCode> {
  return guarded(io, flags, undefined, async (client) => {
    const layer = await readSource(parseSource(source), client);
    const against = flags.against ? await readSource(parseSource(flags.against), client) : undefined;
    const kv = kubeletOf(flags.kubeletVersion, against, layer);
    const base = against ? loadLayer(io, against, kv) : kv.defaults();
    const { errors, warnings } = checkLayer(layer, kv);
    let changes: ClassifiedChange[] = [];
    try {
      // Against a node: as it would run the source, its flags holding their fields (what NodeConfigPolicy compares).
      changes = classify(
        configChanges(
          base,
          kv.load(layer.bytes, layer.dir === undefined ? {} : { dir: layer.dir }).config,
          against?.flags,
          kv.schema(),
        ),
      );
    } catch (e) {
      if (!(e instanceof KubeletConfigError)) throw e; // already among the errors
    }
    const report: LintReport = { source: layer.name, against: against?.name ?? 'defaults', errors, warnings, changes };
    if (flags.output === 'json') io.stdout.write(lintJSON(report));
    else {
      for (const e of errors) io.stderr.write(messages.problem(layer.name, e) + '\n');
      for (const w of warnings) io.stderr.write(messages.warning(layer.name, w) + '\n');
      for (const line of lintLines(changes, io.tty)) io.stdout.write(line + '\n');
    }
    return lintFails(report, flags.strict === true) ? 1 : 0;
  });
}

export async function render(io: Io, base: string, dropIns: readonly string[], flags: RenderFlags): Promise<ExitCode> {
  return guarded(io, flags, undefined, async (client) => {
    const kv = kubeletVersion(flags.kubeletVersion);
    const layer = await readSource(parseSource(base), client);
    const layers = (await Promise.all(dropIns.map((d) => readDropIns(parseSource(d), client)))).flat();
    const r = kv.render(layer, layers);
    for (const w of r.warnings) io.stderr.write(messages.warning(w.source, w.message) + '\n');
    io.stdout.write(kv.encode(r.config, flags.output ?? 'yaml'));
    return 0;
  });
}
