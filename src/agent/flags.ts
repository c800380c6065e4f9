// The agent's command line: the kubelet's own flag names. Flags that map to KubeletConfiguration fields are
// parsed by the kubeletconfig library (so that only flags actually given override); the rest are the agent's
// (kubeconfig, local config file, dynamic config dir, node identity) plus dkc's additions.

import { join } from 'node:path';
import {
  Duration,
  KUBELET_FLAGS,
  parseKubeletFlags,
  parseKubeletVersion,
  type ParsedKubeletFlags,
} from '../kubeletconfig/index.js';
import { CHANNEL_CHOICES, parseChannelChoice, type ChannelChoice } from '../client/channel.js';
import { CodedError, errorMessage } from '../util/errors.js';

/** The kubelet's default --root-dir; --cert-dir defaults to its pki/ as the kubelet's does. */
export const DEFAULT_ROOT_DIR = '/var/lib/kubelet';

/** A `dkc agent` flag is unknown or has a value pflag would reject. */
export class AgentFlagError extends CodedError<'DKC_AGENT_INVALID_FLAG'> {
  override name = 'AgentFlagError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_AGENT_INVALID_FLAG', message, options);
  }
}

export interface AgentFlags {
  kubeconfig?: string;
  config?: string;
  /** The kubelet's --config-dir: drop-ins merged over --config (KEP-3983). */
  configDir?: string;
  dynamicConfigDir?: string;
  hostnameOverride?: string;
  nodeIP?: string;
  nodeLabels: Record<string, string>;
  registerNode: boolean;
  /** Where the agent keeps its files (the kubelet's --root-dir). */
  rootDir: string;
  /** The self-signed serving certificate's directory; default `<rootDir>/pki`. */
  certDir: string;
  capacity?: string;
  /** dkc: the trial before an assigned config becomes last-known-good (upstream: fixed 10m). */
  trialMs: number;
  /** dkc: starts without becoming healthy after which the assigned config is rolled back. */
  crashLoopThreshold: number;
  verbosity: number;
  /** klog's --log-file: log lines are appended there too, and the agent serves its directory at /logs/. */
  logFile?: string;
  /** klog's --logtostderr; false with --log-file writes log lines to the file only. */
  logToStderr: boolean;
  /** The KubeletConfiguration flags, for the precedence merge. */
  kubelet: ParsedKubeletFlags;
  /** dkc: the kubelet minor to behave as (`1.31`); 1.22 when not given. */
  kubeletVersion?: string;
  /** dkc: where the node's assignment and status.config live; `auto` finds it from the API server. */
  configChannel: ChannelChoice;
}

type Kind = 'string' | 'bool' | 'int' | 'labels' | 'duration';
type Group = 'kubelet' | 'dkc';
interface AgentFlagSpec {
  key: keyof AgentFlags;
  kind: Kind;
  group: Group;
  /** What --help shows after the name: the value's form. */
  value: string;
  help: string;
  default?: string;
}

const agentFlags: Record<string, AgentFlagSpec> = {
  kubeconfig: {
    key: 'kubeconfig',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: 'kubeconfig for the API server; without it the agent runs standalone',
  },
  config: {
    key: 'config',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: 'the local KubeletConfiguration file',
  },
  'config-dir': {
    key: 'configDir',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: "drop-ins (*.conf, in file-name order) merged over --config, as the kubelet's --config-dir",
  },
  'dynamic-config-dir': {
    key: 'dynamicConfigDir',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: 'where downloaded configs are checkpointed; turns on dynamic config (needs --feature-gates=DynamicKubeletConfig=true)',
  },
  'hostname-override': {
    key: 'hostnameOverride',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: "the node's name instead of the host name",
  },
  'node-ip': {
    key: 'nodeIP',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: "the node's IP address reported in its status",
  },
  'node-labels': {
    key: 'nodeLabels',
    kind: 'labels',
    group: 'kubelet',
    value: 'key=value,...',
    help: 'labels to register the node with',
  },
  'register-node': {
    key: 'registerNode',
    kind: 'bool',
    group: 'kubelet',
    value: 'bool',
    help: 'register the node with the API server',
    default: 'true',
  },
  'root-dir': {
    key: 'rootDir',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: "the agent's own files",
    default: DEFAULT_ROOT_DIR,
  },
  'cert-dir': {
    key: 'certDir',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: 'where the self-signed serving certificate is kept (ignored with --tls-cert-file)',
    default: '<root-dir>/pki',
  },
  v: { key: 'verbosity', kind: 'int', group: 'kubelet', value: 'int', help: 'log verbosity', default: '0' },
  'log-file': {
    key: 'logFile',
    kind: 'string',
    group: 'kubelet',
    value: 'string',
    help: 'also append log lines to this file; its directory is served at /logs/ (as the kubelet serves /var/log)',
  },
  logtostderr: {
    key: 'logToStderr',
    kind: 'bool',
    group: 'kubelet',
    value: 'bool',
    help: 'log to standard error; with --log-file, false writes to the file only',
    default: 'true',
  },
  capacity: {
    key: 'capacity',
    kind: 'string',
    group: 'dkc',
    value: 'cpu=4,memory=8Gi,pods=110',
    help: "the node's reported capacity",
  },
  'kubelet-version': {
    key: 'kubeletVersion',
    kind: 'string',
    group: 'dkc',
    value: '1.MINOR',
    help: 'the kubelet to behave as: its config fields, defaults, validation and feature gates, and the version the node reports',
    default: '1.22',
  },
  'config-channel': {
    key: 'configChannel',
    kind: 'string',
    group: 'dkc',
    value: CHANNEL_CHOICES.join('|'),
    help: "where the node's config assignment lives: its Node (spec.configSource) or its NodeConfig (dkc.io); auto asks the API server",
    default: 'auto',
  },
  'dynamic-config-trial-duration': {
    key: 'trialMs',
    kind: 'duration',
    group: 'dkc',
    value: 'duration',
    help: 'how long an assigned config must stay healthy before it becomes last-known-good',
    default: '10m',
  },
  'dynamic-config-crash-loop-threshold': {
    key: 'crashLoopThreshold',
    kind: 'int',
    group: 'dkc',
    value: 'int',
    help: 'starts without becoming healthy after which the assigned config is rolled back (0: never)',
    default: '3',
  },
};

const HELP_HEADER = [
  'Usage: dkc agent [flags]',
  '',
  "Runs the node agent: the kubelet's lifecycle with its dynamic config controller. It takes the kubelet's flag",
  'names; to switch config it exits 0 and expects to be started again (by dkc up or systemd).',
];

function helpLine(name: string, value: string, help: string): string {
  const left = `  ${name.length === 1 ? '-' : '--'}${name} ${value}`;
  return left.length < 43 ? `${left.padEnd(44)}${help}` : `${left}\n${' '.repeat(44)}${help}`;
}

function ownFlagLines(group: Group): string[] {
  return Object.entries(agentFlags)
    .filter(([, f]) => f.group === group)
    .map(([name, f]) => helpLine(name, f.value, f.default === undefined ? f.help : `${f.help} (default ${f.default})`));
}

/** `dkc agent --help`: the kubelet's flags, the KubeletConfiguration flags, then dkc's own. */
export function agentHelp(): string {
  const configFlags = [...KUBELET_FLAGS.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((f) => helpLine(f.name, f.type, `sets ${f.field}`));
  return [
    ...HELP_HEADER,
    '',
    'Kubelet flags:',
    ...ownFlagLines('kubelet'),
    '',
    'KubeletConfiguration flags (override --config and the dynamic config; `dkc config defaults` shows the defaults):',
    ...configFlags,
    '',
    "dkc's own flags:",
    ...ownFlagLines('dkc'),
    '',
    '  -h, --help                                show this help',
    '      --version                             print the version',
    '',
  ].join('\n');
}

function parseLabels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of s
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0)
      throw new AgentFlagError(
        `invalid argument "${s}" for "--node-labels" flag: ${part} must be formatted as key=value`,
      );
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

function defaultAgentFlags(): AgentFlags {
  return {
    nodeLabels: {},
    registerNode: true,
    rootDir: DEFAULT_ROOT_DIR,
    certDir: '',
    trialMs: 10 * 60_000,
    crashLoopThreshold: 3,
    verbosity: 0,
    logToStderr: true,
    kubelet: { given: [], rest: [] },
    configChannel: 'auto',
  };
}

/** The flag at `rest[i]`, its spec and its value; `next` is the index after it (past a separate value). */
function readFlag(
  rest: readonly string[],
  i: number,
): { name: string; spec: AgentFlagSpec; value: string; next: number } {
  const arg = rest[i]!;
  if (!arg.startsWith('-')) throw new AgentFlagError(`unexpected argument ${JSON.stringify(arg)}`);
  const body = arg.replace(/^--?/, '');
  const eq = body.indexOf('=');
  const name = (eq < 0 ? body : body.slice(0, eq)).replace(/_/g, '-');
  const spec = agentFlags[name];
  if (!spec) throw new AgentFlagError(`unknown flag: --${name}`);
  if (eq >= 0) return { name, spec, value: body.slice(eq + 1), next: i + 1 };
  if (spec.kind === 'bool') return { name, spec, value: 'true', next: i + 1 };
  const value = rest[i + 1];
  if (value === undefined) throw new AgentFlagError(`flag needs an argument: --${name}`);
  return { name, spec, value, next: i + 2 };
}

/** Sets the flag's field from its value, as its kind reads it. */
function setFlag(flags: AgentFlags, name: string, spec: AgentFlagSpec, value: string): void {
  const record = flags as unknown as Record<string, unknown>;
  switch (spec.kind) {
    case 'string':
      record[spec.key] = value;
      break;
    case 'bool':
      if (!['true', 'false', '1', '0'].includes(value))
        throw new AgentFlagError(
          `invalid argument "${value}" for "--${name}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`,
        );
      record[spec.key] = value === 'true' || value === '1';
      break;
    case 'int': {
      if (!/^-?\d+$/.test(value))
        throw new AgentFlagError(
          `invalid argument "${value}" for "--${name}" flag: strconv.ParseInt: parsing "${value}": invalid syntax`,
        );
      record[spec.key] = Number(value);
      break;
    }
    case 'labels':
      flags.nodeLabels = { ...flags.nodeLabels, ...parseLabels(value) };
      break;
    case 'duration': {
      let d: Duration;
      try {
        d = Duration.parse(value);
      } catch (err) {
        throw new AgentFlagError(`invalid argument "${value}" for "--${name}" flag: ${errorMessage(err)}`, {
          cause: err,
        });
      }
      record[spec.key] = d.toMilliseconds();
      break;
    }
  }
}

/** Checks the flags against each other and fills in what depends on others (the cert dir under the root dir). */
function finishFlags(flags: AgentFlags): AgentFlags {
  if (flags.kubeletVersion !== undefined) {
    try {
      flags.kubeletVersion = parseKubeletVersion(flags.kubeletVersion);
    } catch (err) {
      throw new AgentFlagError(
        `invalid argument ${JSON.stringify(flags.kubeletVersion)} for "--kubelet-version" flag: ${errorMessage(err)}`,
        { cause: err },
      );
    }
  }
  try {
    flags.configChannel = parseChannelChoice(flags.configChannel);
  } catch (err) {
    throw new AgentFlagError(errorMessage(err), { cause: err });
  }
  if (flags.crashLoopThreshold < 0)
    throw new AgentFlagError('--dynamic-config-crash-loop-threshold must not be negative');
  if (flags.logFile === '') throw new AgentFlagError('--log-file must not be empty');
  if (flags.rootDir === '') throw new AgentFlagError('--root-dir must not be empty');
  // As the kubelet: the serving certificate lives under the root dir, never in whatever directory the agent runs in.
  if (flags.certDir === '') flags.certDir = join(flags.rootDir, 'pki');
  return flags;
}

/** The minor --kubelet-version names, read ahead so the kubelet flags are that kubelet's; 1.22 when absent or bad. */
function kubeletMinorOf(argv: readonly string[]): number {
  let value: string | undefined;
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    const arg = argv[i]!.replace(/_/g, '-');
    if (arg.startsWith('--kubelet-version=')) value = arg.slice('--kubelet-version='.length);
    else if (arg === '--kubelet-version') value = argv[i + 1];
  }
  try {
    return value === undefined ? 22 : Number(parseKubeletVersion(value).split('.')[1]);
  } catch {
    return 22; // finishFlags reports it
  }
}

export function parseAgentFlags(argv: readonly string[]): AgentFlags {
  const flags = defaultAgentFlags();
  let kubeletParsed: ParsedKubeletFlags;
  try {
    kubeletParsed = parseKubeletFlags(argv, kubeletMinorOf(argv));
  } catch (err) {
    throw new AgentFlagError(errorMessage(err), { cause: err });
  }
  flags.kubelet = { given: kubeletParsed.given, rest: [] };
  // A flag the agent has of its own that a later kubelet made a config flag (--register-node from 1.23) sets both.
  for (const g of kubeletParsed.given) {
    const own = agentFlags[g.name];
    if (own) setFlag(flags, g.name, own, g.value);
  }
  const rest = kubeletParsed.rest;
  for (let i = 0; i < rest.length;) {
    const { name, spec, value, next } = readFlag(rest, i);
    setFlag(flags, name, spec, value);
    i = next;
  }
  return finishFlags(flags);
}
