// What the daemon reads of the kubelet on its host rather than from the API server: the kubelet's config flags and
// its version. Both used to come from the Node (its `dkc.io/config-flags` annotation, status.nodeInfo.kubeletVersion),
// which on kube-apiserver anyone with `patch nodes` (or `nodes/status`) can write: a forged `--max-pods=110` made a
// field a NodeConfigPolicy denies look like "no change", and on a real cluster the daemon is the only enforcement of
// those policies. The host's own files and the kubelet's own binary are what the kubelet runs with.
//
// Flags files, in the three forms a host has them: a systemd EnvironmentFile (kubeadm's
// /var/lib/kubelet/kubeadm-flags.env, `KUBELET_KUBEADM_ARGS="..."`; /etc/default/kubelet, `KUBELET_EXTRA_ARGS=...`),
// whose values systemd splits on white space where ExecStart expands them; a plain file of arguments (shell-like
// words); and a NUL-separated command line (/proc/<pid>/cmdline), its first word the program. The files are read in
// the order given and their arguments joined, as kubeadm's unit joins its variables (a flag given twice: the last
// wins, as pflag has it). A file that is absent gives no flags; a missing or unreadable record never holds a field
// (the comparison then lists more changes, never fewer).

import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { parseKubeletFlags, parseKubeletVersion } from '../kubeletconfig/index.js';
import { ownConfigFlags, type NodeConfigFlags } from '../nodepolicy/flags.js';
import { errorMessage } from '../util/errors.js';
import { messages } from './messages.js';

/** Shell-like words: white space separates, '…' and "…" group, a backslash escapes the next character. */
export function shellWords(text: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) word += text[++i]!;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < text.length) word = (word ?? '') + text[++i]!;
    else if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) out.push(word);
  return out;
}

const ENV_LINE = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*=(.*)$/;

/** The kubelet arguments a flags file holds, in any of its three forms (see above). Pure. */
export function flagsFileArgs(text: string): string[] {
  if (text.includes('\0')) {
    const words = text.split('\0').filter((w) => w !== '');
    return words.length > 0 && !words[0]!.startsWith('-') ? words.slice(1) : words;
  }
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const env = ENV_LINE.exec(line);
    if (!env) {
      out.push(...shellWords(line));
      continue;
    }
    // systemd drops the value's quotes, then splits the expanded $VAR on white space.
    const value = env[1]!.trim();
    const unquoted = /^(["']).*\1$/s.test(value) ? value.slice(1, -1) : value;
    out.push(...unquoted.split(/\s+/).filter((w) => w !== ''));
  }
  return out;
}

/** The config flags among kubelet arguments; every value is known on the host, so none is withheld. Pure. */
export function configFlagsOf(args: readonly string[], minor?: number): NodeConfigFlags {
  const parsed = parseKubeletFlags(args, minor);
  return ownConfigFlags({ given: parsed.given, rest: [] });
}

export interface HostFlags {
  flags: NodeConfigFlags;
  /** The files that held arguments. */
  read: string[];
  /** Files that exist but could not be read or parsed, with why (their flags are left out). */
  problems: string[];
}

/** The config flags of kubelet 1.`minor` from `files` (see above), read now. */
export async function readKubeletFlags(files: readonly string[], minor?: number): Promise<HostFlags> {
  const args: string[] = [];
  const read: string[] = [];
  const problems: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`${file}: ${errorMessage(err)}`);
      continue;
    }
    const words = flagsFileArgs(text);
    try {
      parseKubeletFlags(words, minor);
    } catch (err) {
      problems.push(`${file}: ${errorMessage(err)}`);
      continue;
    }
    args.push(...words);
    read.push(file);
  }
  return { flags: configFlagsOf(args, minor), read, problems };
}

/** `1.MINOR` from what `kubelet --version` prints (`Kubernetes v1.31.2`, `Kubernetes v1.29.3-eks-1`). Pure. */
export function versionFromOutput(output: string): string {
  const line = output.trim().split('\n')[0] ?? '';
  const m = /^(?:Kubernetes\s+)?(v?\d+\.\d+)(?:\.\d+)?(?:[-+]\S*)?$/.exec(line.trim());
  return parseKubeletVersion(m ? m[1]! : line);
}

/** Runs `command` through a shell; resolves with its stdout, rejects with its status and last line of output. */
export function runForOutput(command: string, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out = (out + b.toString('utf8')).slice(-4000)));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString('utf8')).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolvePromise(out);
      const last = (err.trim() || out.trim()).split('\n').at(-1) ?? '';
      const status = code === null ? `signal ${signal ?? ''}` : `status ${code}`;
      reject(new Error(`${JSON.stringify(command)} exited with ${status}${last ? `: ${last}` : ''}`));
    });
  });
}

/** How long `kubelet --version` may take. */
const VERSION_TIMEOUT_MS = 10_000;

/**
 * The kubelet's minor: --kubelet-version when given, else what the kubelet's own binary says, else (with a warning,
 * since a `nodes/status` patcher can change it) the Node's status.nodeInfo.kubeletVersion. Throws when none tells.
 */
export async function kubeletVersionOnHost(o: {
  flag: string | undefined;
  command: string;
  /** The Node's status.nodeInfo.kubeletVersion. */
  reported: string;
  warn(line: string): void;
  /** Why the reported version does not parse, as a one-line error. */
  unusable(reported: string, why: string): Error;
}): Promise<string> {
  if (o.flag !== undefined) return o.flag;
  let why: string;
  try {
    return versionFromOutput(await runForOutput(o.command, VERSION_TIMEOUT_MS));
  } catch (err) {
    why = errorMessage(err);
  }
  o.warn(messages.versionFromNode(o.command, why, o.reported));
  try {
    return parseKubeletVersion(o.reported);
  } catch (err) {
    throw o.unusable(o.reported, errorMessage(err));
  }
}
