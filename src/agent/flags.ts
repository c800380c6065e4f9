// The agent's command line: the kubelet's own flag names. Flags that map to KubeletConfiguration fields are
// parsed by the kubeletconfig library (so that only flags actually given override); the rest are the agent's
// (kubeconfig, local config file, dynamic config dir, node identity) plus dkc's additions.

import { Duration, parseKubeletFlags, type ParsedKubeletFlags } from '../kubeletconfig/index.js';

export class AgentFlagError extends Error {
  readonly code = 'invalid-agent-flag';
}

export interface AgentFlags {
  kubeconfig?: string;
  config?: string;
  dynamicConfigDir?: string;
  hostnameOverride?: string;
  nodeIP?: string;
  nodeLabels: Record<string, string>;
  registerNode: boolean;
  certDir?: string;
  capacity?: string;
  /** dkc: the trial before an assigned config becomes last-known-good (upstream: fixed 10m). */
  trialMs: number;
  /** dkc: starts without becoming healthy after which the assigned config is rolled back. */
  crashLoopThreshold: number;
  verbosity: number;
  /** The KubeletConfiguration flags, for the precedence merge. */
  kubelet: ParsedKubeletFlags;
}

type Kind = 'string' | 'bool' | 'int' | 'labels' | 'duration';
const agentFlags: Record<string, { key: keyof AgentFlags; kind: Kind }> = {
  kubeconfig: { key: 'kubeconfig', kind: 'string' },
  config: { key: 'config', kind: 'string' },
  'dynamic-config-dir': { key: 'dynamicConfigDir', kind: 'string' },
  'hostname-override': { key: 'hostnameOverride', kind: 'string' },
  'node-ip': { key: 'nodeIP', kind: 'string' },
  'node-labels': { key: 'nodeLabels', kind: 'labels' },
  'register-node': { key: 'registerNode', kind: 'bool' },
  'cert-dir': { key: 'certDir', kind: 'string' },
  capacity: { key: 'capacity', kind: 'string' },
  'dynamic-config-trial-duration': { key: 'trialMs', kind: 'duration' },
  'dynamic-config-crash-loop-threshold': { key: 'crashLoopThreshold', kind: 'int' },
  v: { key: 'verbosity', kind: 'int' },
};

function parseLabels(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of s.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new AgentFlagError(`invalid argument "${s}" for "--node-labels" flag: ${part} must be formatted as key=value`);
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

export function parseAgentFlags(argv: readonly string[]): AgentFlags {
  const flags: AgentFlags = {
    nodeLabels: {},
    registerNode: true,
    trialMs: 10 * 60_000,
    crashLoopThreshold: 3,
    verbosity: 0,
    kubelet: { given: [], rest: [] },
  };
  let kubeletParsed: ParsedKubeletFlags;
  try {
    kubeletParsed = parseKubeletFlags(argv);
  } catch (err) {
    throw new AgentFlagError((err as Error).message);
  }
  flags.kubelet = { given: kubeletParsed.given, rest: [] };
  const rest = kubeletParsed.rest;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (!arg.startsWith('-')) throw new AgentFlagError(`unexpected argument ${JSON.stringify(arg)}`);
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = (eq < 0 ? body : body.slice(0, eq)).replace(/_/g, '-');
    const spec = agentFlags[name];
    if (!spec) throw new AgentFlagError(`unknown flag: --${name}`);
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (spec.kind === 'bool') value = 'true';
    else {
      const next = rest[i + 1];
      if (next === undefined) throw new AgentFlagError(`flag needs an argument: --${name}`);
      value = next;
      i++;
    }
    const record = flags as unknown as Record<string, unknown>;
    switch (spec.kind) {
      case 'string':
        record[spec.key] = value;
        break;
      case 'bool':
        if (!['true', 'false', '1', '0'].includes(value)) throw new AgentFlagError(`invalid argument "${value}" for "--${name}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`);
        record[spec.key] = value === 'true' || value === '1';
        break;
      case 'int': {
        if (!/^-?\d+$/.test(value)) throw new AgentFlagError(`invalid argument "${value}" for "--${name}" flag: strconv.ParseInt: parsing "${value}": invalid syntax`);
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
          throw new AgentFlagError(`invalid argument "${value}" for "--${name}" flag: ${(err as Error).message}`);
        }
        record[spec.key] = d.toMilliseconds();
        break;
      }
    }
  }
  if (flags.crashLoopThreshold < 0) throw new AgentFlagError('--dynamic-config-crash-loop-threshold must not be negative');
  return flags;
}
