// `dkc node-daemon`'s command line: kubelet-style flags (`--name=value` or `--name value`) whose names are part of the
// interface (docs/reference/node-daemon.md). Pure.

import { hostname } from 'node:os';
import { Duration, parseKubeletVersion } from '../kubeletconfig/index.js';
import { CHANNEL_CHOICES, parseChannelChoice, type ChannelChoice } from '../client/channel.js';
import { messages } from './messages.js';
import { CodedError, errorMessage } from '../util/errors.js';

/** A dkc node-daemon flag holds a value the daemon cannot use. */
export class NodeDaemonFlagError extends CodedError<'DKC_NODEDAEMON_INVALID_FLAG'> {
  override name = 'NodeDaemonFlagError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('DKC_NODEDAEMON_INVALID_FLAG', message, options);
  }
}

export type ApplyAs = 'dropin' | 'replace';

export interface NodeDaemonFlags {
  kubeconfig: string;
  nodeName: string;
  kubeletConfig: string;
  kubeletConfigDir: string;
  applyAs: ApplyAs;
  kubeletRestartCommand: string;
  /** Prints the kubelet's process id (0 or nothing: not running); empty disables the restart accounting. */
  kubeletPidCommand: string;
  /** Restarts of the kubelet the daemon did not cause, during a trial, that fail the config. */
  crashLoopThreshold: number;
  kubeletHealthzURL: string;
  dynamicConfigDir: string;
  /** Undefined: what --kubelet-version-command prints, else the Node's status.nodeInfo.kubeletVersion. */
  kubeletVersion?: string;
  /** Prints the kubelet's version (`kubelet --version`), run through a shell. */
  kubeletVersionCommand: string;
  /** The host files that hold the kubelet's command-line flags (kubelethost.ts), read in this order. */
  kubeletFlagsFiles: string[];
  /** How often the daemon's files and the drop-in directory are checked besides the file-system watch. */
  driftCheckIntervalMs: number;
  startTimeoutMs: number;
  trialMs: number;
  /** host:port of the daemon's own /metrics and /healthz; undefined disables them. */
  metricsBindAddress?: string;
  configChannel: ChannelChoice;
  /** The drop-in file's name in --kubelet-config-dir. */
  dropInName: string;
  verbosity: number;
  /** How often healthz is probed. */
  probeIntervalMs: number;
}

type Kind = 'string' | 'duration' | 'int';

const DEFAULT_FLAGS_FILES = ['/var/lib/kubelet/kubeadm-flags.env', '/etc/default/kubelet', '/etc/sysconfig/kubelet'];
interface Spec {
  key: keyof NodeDaemonFlags;
  kind: Kind;
  value: string;
  help: string;
  default?: string;
}

const SPECS: Record<string, Spec> = {
  kubeconfig: {
    key: 'kubeconfig',
    kind: 'string',
    value: 'string',
    help: "credentials for the API server; by default the node's own",
    default: '/etc/kubernetes/kubelet.conf',
  },
  'node-name': {
    key: 'nodeName',
    kind: 'string',
    value: 'string',
    help: 'the node whose kubelet this daemon manages',
    default: 'the host name',
  },
  'kubelet-config': {
    key: 'kubeletConfig',
    kind: 'string',
    value: 'string',
    help: "the kubelet's --config file",
    default: '/var/lib/kubelet/config.yaml',
  },
  'kubelet-config-dir': {
    key: 'kubeletConfigDir',
    kind: 'string',
    value: 'string',
    help: "the kubelet's --config-dir (drop-ins)",
    default: '/etc/kubernetes/kubelet.conf.d',
  },
  'apply-as': {
    key: 'applyAs',
    kind: 'string',
    value: 'dropin|replace',
    help: "dropin: the assigned config is one drop-in over the node's own file; replace: it replaces the --config file",
    default: 'dropin',
  },
  'kubelet-restart-command': {
    key: 'kubeletRestartCommand',
    kind: 'string',
    value: 'string',
    help: 'run through a shell to restart the kubelet',
    default: 'systemctl restart kubelet',
  },
  'kubelet-pid-command': {
    key: 'kubeletPidCommand',
    kind: 'string',
    value: 'string',
    help: "run through a shell to print the kubelet's process id (0: not running): a change the daemon did not cause is a kubelet restart; empty: not watched",
    default: 'systemctl show --property MainPID --value kubelet',
  },
  'dynamic-config-crash-loop-threshold': {
    key: 'crashLoopThreshold',
    kind: 'int',
    value: 'int',
    help: 'restarts of the kubelet the daemon did not cause, during the trial, after which the assigned config is rolled back',
    default: '3',
  },
  'kubelet-healthz-url': {
    key: 'kubeletHealthzURL',
    kind: 'string',
    value: 'string',
    help: "the kubelet's health endpoint",
    default: 'http://127.0.0.1:10248/healthz',
  },
  'dynamic-config-dir': {
    key: 'dynamicConfigDir',
    kind: 'string',
    value: 'string',
    help: "checkpoints (upstream layout) and the daemon's records",
    default: '/var/lib/dkc/dynamic-config',
  },
  'kubelet-version': {
    key: 'kubeletVersion',
    kind: 'string',
    value: '1.MINOR',
    help: 'the kubelet whose fields and rules configs are validated against',
    default: "the Node's status.nodeInfo.kubeletVersion",
  },
  'kubelet-version-command': {
    key: 'kubeletVersionCommand',
    kind: 'string',
    value: 'string',
    help: 'run through a shell when --kubelet-version is not given: prints the kubelet\'s version ("Kubernetes v1.31.2"); when it fails, the Node\'s status.nodeInfo.kubeletVersion, with a warning',
    default: 'kubelet --version',
  },
  'kubelet-flags-file': {
    key: 'kubeletFlagsFiles',
    kind: 'string',
    value: 'path,...',
    help: "files holding the kubelet's command-line flags (a systemd EnvironmentFile such as kubeadm-flags.env, a plain file of arguments, or a NUL-separated command line), read in order; their config flags hold the fields NodeConfigPolicies compare",
    default: '/var/lib/kubelet/kubeadm-flags.env,/etc/default/kubelet,/etc/sysconfig/kubelet',
  },
  'drift-check-interval': {
    key: 'driftCheckIntervalMs',
    kind: 'duration',
    value: 'duration',
    help: "how often the daemon's own kubelet file and the drop-in directory are checked for edits, besides watching them",
    default: '10s',
  },
  'kubelet-start-timeout': {
    key: 'startTimeoutMs',
    kind: 'duration',
    value: 'duration',
    help: 'how long the kubelet has to become healthy after a restart',
    default: '60s',
  },
  'dynamic-config-trial-duration': {
    key: 'trialMs',
    kind: 'duration',
    value: 'duration',
    help: 'how long an assigned config must stay healthy before it becomes last-known-good',
    default: '10m',
  },
  'metrics-bind-address': {
    key: 'metricsBindAddress',
    kind: 'string',
    value: 'host:port',
    help: "the daemon's /metrics and /healthz; 0 disables them",
    default: '127.0.0.1:10262',
  },
  'config-channel': {
    key: 'configChannel',
    kind: 'string',
    value: CHANNEL_CHOICES.join('|'),
    help: "where the node's assignment lives; auto asks the API server",
    default: 'auto',
  },
  'drop-in-name': {
    key: 'dropInName',
    kind: 'string',
    value: 'string',
    help: 'the drop-in file the daemon owns in --kubelet-config-dir',
    default: '90-dkc.conf',
  },
  'health-probe-interval': {
    key: 'probeIntervalMs',
    kind: 'duration',
    value: 'duration',
    help: "how often the kubelet's healthz is probed",
    default: '1s',
  },
  v: { key: 'verbosity', kind: 'int', value: 'int', help: 'log verbosity', default: '0' },
};

export function nodeDaemonHelp(): string {
  const lines = Object.entries(SPECS).map(([name, s]) => {
    const left = `  --${name} ${s.value}`;
    const help = s.default === undefined ? s.help : `${s.help} (default ${s.default})`;
    return left.length < 43 ? `${left.padEnd(44)}${help}` : `${left}\n${' '.repeat(44)}${help}`;
  });
  return [
    'Usage: dkc node-daemon [flags]',
    '',
    'Runs beside a kubelet and applies the config assigned to its node: downloads and checkpoints it, writes it as a',
    'drop-in (or over --config), restarts the kubelet, and keeps it only if the kubelet stays healthy for the trial.',
    '',
    'Flags:',
    ...lines,
    '  -h, --help                                show this help',
    '',
  ].join('\n');
}

export function parseNodeDaemonFlags(argv: readonly string[], host: () => string = hostname): NodeDaemonFlags {
  const flags: NodeDaemonFlags = {
    kubeconfig: '/etc/kubernetes/kubelet.conf',
    nodeName: '',
    kubeletConfig: '/var/lib/kubelet/config.yaml',
    kubeletConfigDir: '/etc/kubernetes/kubelet.conf.d',
    applyAs: 'dropin',
    kubeletRestartCommand: 'systemctl restart kubelet',
    kubeletPidCommand: 'systemctl show --property MainPID --value kubelet',
    crashLoopThreshold: 3,
    kubeletHealthzURL: 'http://127.0.0.1:10248/healthz',
    dynamicConfigDir: '/var/lib/dkc/dynamic-config',
    startTimeoutMs: 60_000,
    trialMs: 10 * 60_000,
    metricsBindAddress: '127.0.0.1:10262',
    configChannel: 'auto',
    dropInName: '90-dkc.conf',
    verbosity: 0,
    probeIntervalMs: 1_000,
    kubeletVersionCommand: 'kubelet --version',
    kubeletFlagsFiles: [...DEFAULT_FLAGS_FILES],
    driftCheckIntervalMs: 10_000,
  };
  const record = flags as unknown as Record<string, unknown>;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-')) throw new NodeDaemonFlagError(messages.unexpectedArgument(arg));
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const spec = SPECS[name];
    if (!spec) throw new NodeDaemonFlagError(messages.unknownFlag(name));
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new NodeDaemonFlagError(messages.needsArgument(name));
      value = next;
      i++;
    }
    if (spec.kind === 'string') record[spec.key] = value;
    else if (spec.kind === 'int') {
      if (!/^\d+$/.test(value))
        throw new NodeDaemonFlagError(
          messages.badDuration(name, value, `strconv.ParseInt: parsing "${value}": invalid syntax`),
        );
      record[spec.key] = Number(value);
    } else {
      try {
        record[spec.key] = Duration.parse(value).toMilliseconds();
      } catch (err) {
        throw new NodeDaemonFlagError(messages.badDuration(name, value, errorMessage(err)), { cause: err });
      }
    }
  }
  if (flags.applyAs !== 'dropin' && flags.applyAs !== 'replace')
    throw new NodeDaemonFlagError(messages.badApplyAs(flags.applyAs));
  if (flags.kubeletVersion !== undefined) {
    try {
      flags.kubeletVersion = parseKubeletVersion(flags.kubeletVersion);
    } catch (err) {
      throw new NodeDaemonFlagError(messages.badVersion(flags.kubeletVersion, errorMessage(err)), { cause: err });
    }
  }
  try {
    flags.configChannel = parseChannelChoice(flags.configChannel);
  } catch (err) {
    throw new NodeDaemonFlagError(errorMessage(err), { cause: err });
  }
  // One string on the command line, a list to the daemon; an empty value reads no file.
  const files = record['kubeletFlagsFiles'];
  if (typeof files === 'string') flags.kubeletFlagsFiles = files.split(',').filter((f) => f !== '');
  if (flags.driftCheckIntervalMs <= 0) throw new NodeDaemonFlagError(messages.notPositive('drift-check-interval'));
  if (flags.metricsBindAddress === '0') delete flags.metricsBindAddress;
  else if (flags.metricsBindAddress !== undefined && !/^.+:\d{1,5}$/.test(flags.metricsBindAddress))
    throw new NodeDaemonFlagError(messages.badAddress(flags.metricsBindAddress));
  for (const name of [
    'kubeconfig',
    'kubelet-config',
    'kubelet-config-dir',
    'kubelet-restart-command',
    'kubelet-healthz-url',
    'dynamic-config-dir',
    'drop-in-name',
    'kubelet-version-command',
  ] as const) {
    if (record[SPECS[name]!.key] === '') throw new NodeDaemonFlagError(messages.emptyFlag(name));
  }
  if (flags.crashLoopThreshold < 1)
    throw new NodeDaemonFlagError(messages.badThreshold(String(flags.crashLoopThreshold)));
  if (flags.nodeName === '') flags.nodeName = host().toLowerCase();
  return flags;
}
