// Every line `dkc node-daemon` shows a person: flag errors, log lines (prefixed as the kubelet's config controller
// prefixed its own) and the causes it reports with a rolled-back config.

import { describeSource, type NodeConfigSource } from '../agent/dynamicconfig/source.js';

export const messages = {
  unknownFlag: (name: string) => `unknown flag: --${name}`,
  needsArgument: (name: string) => `flag needs an argument: --${name}`,
  unexpectedArgument: (arg: string) => `unexpected argument ${JSON.stringify(arg)}`,
  badDuration: (name: string, value: string, why: string) => `invalid argument "${value}" for "--${name}" flag: ${why}`,
  badApplyAs: (value: string) => `invalid argument "${value}" for "--apply-as" flag: must be dropin or replace`,
  badVersion: (value: string, why: string) =>
    `invalid argument ${JSON.stringify(value)} for "--kubelet-version" flag: ${why}`,
  badNodeVersion: (node: string, value: string, why: string) =>
    `cannot tell the kubelet version of Node ${JSON.stringify(node)} from status.nodeInfo.kubeletVersion ${JSON.stringify(value)} (${why}); set --kubelet-version`,
  versionFromNode: (command: string, why: string, reported: string) =>
    `cannot tell the kubelet's version from ${JSON.stringify(command)} (${why}); using the Node's status.nodeInfo.kubeletVersion ${JSON.stringify(reported)}, which anyone who may patch nodes/status can change: set --kubelet-version or --kubelet-version-command`,
  flagsFileProblem: (problem: string) =>
    `cannot read the kubelet's flags from ${problem}; its config flags there are left out (NodeConfigPolicies then see every field they set as a change)`,
  badThreshold: (value: string) =>
    `invalid argument "${value}" for "--dynamic-config-crash-loop-threshold" flag: must be at least 1`,
  emptyFlag: (name: string) => `--${name} must not be empty`,
  notPositive: (name: string) => `--${name} must be greater than 0`,
  badAddress: (value: string) =>
    `invalid argument "${value}" for "--metrics-bind-address" flag: want host:port, or 0 to disable`,

  starting: (node: string, mode: string) =>
    `starting for node ${JSON.stringify(node)}, applying assigned configs as ${mode}`,
  waitingForNode: (node: string, why: string) =>
    `waiting for Node ${JSON.stringify(node)} to be registered by its kubelet: ${why}`,
  keptOriginal: (path: string) => `kept the node's original ${path} before changing it for the first time`,
  wrote: (path: string, what: string) => `wrote ${path} (${what})`,
  removedTemp: (name: string) => `removed ${name}, left by a write that did not finish`,
  removed: (path: string) => `removed ${path} (the node had none before)`,
  restarting: (command: string) => `restarting the kubelet: ${command}`,
  restartFailed: (why: string) => `the kubelet restart command failed: ${why}`,
  resumed: (what: string) => `the kubelet already runs ${what}: not restarting it`,
  resumedRestart: (what: string) => `${what} was written but the kubelet restart may not have finished: restarting it`,
  healthy: (what: string) => `the kubelet is healthy on ${what}`,
  promoted: (src: NodeConfigSource) => `updated last-known-good config to ${describeSource(src)}`,
  pruned: (dir: string) => `removed checkpoint ${dir}: neither assigned, last-known-good nor run by the kubelet`,
  pruneFailed: (why: string) => `failed to remove unused checkpoints, error: ${why}`,
  rejected: (reason: string, detail: string) => `${reason}, error: ${detail}`,
  rollingBack: (what: string) => `rolling the kubelet back to ${what}`,
  startTimeoutResumed: (url: string, seconds: number, last: string) =>
    `the kubelet did not become healthy within ${seconds}s of the daemon first finding it down after the daemon's start (${url}: ${last})`,
  crashLoop: (count: number, threshold: number) =>
    `the kubelet restarted ${count} times during its trial without the daemon restarting it (threshold ${threshold}): a crash loop`,
  unexpectedRestart: (pid: number, count: number) =>
    `the kubelet restarted without the daemon restarting it (now pid ${pid}; ${count} on this config so far)`,
  superseded: (what: string) => `not applying ${what}: a newer assignment arrived, applying that one instead`,
  recovering: (what: string) => `recovering an apply that did not finish before the daemon stopped (${what})`,
  nodeFilesChanged: "the node's own kubelet files changed: judging the assignment again",
  wentUnhealthy: (url: string, problem: string) => `the kubelet stopped being healthy (${url}: ${problem})`,
  healthyAgain: 'the kubelet is healthy again',
  startTimeout: (url: string, seconds: number, last: string) =>
    `the kubelet did not become healthy within ${seconds}s of its restart (${url}: ${last})`,
  unhealthy: (url: string, seconds: number, last: string) =>
    `the kubelet stopped being healthy during its trial and did not recover within ${seconds}s (${url}: ${last})`,
  nodeFilesBroken: (why: string) =>
    `the node's own kubelet files do not load or validate, whatever is assigned (fix them; the assignment is judged again when they change): ${why}`,
  droppedFields: (fields: readonly string[], annotation: string) =>
    `the replacement leaves out ${fields.join(', ')}, set by the node's own config file (without them the API server cannot reach the kubelet); to mean it, annotate the ConfigMap ${annotation}: "${fields.join(',')}"`,
  notReady: (status: string) => `Node Ready=${status}`,
  rebuiltRecords: (path: string, src: string) =>
    `${path} is this daemon's own file but its records are gone: rebuilt them from it (${src}); the kubelet is not restarted`,
  ownFileEdited: (path: string, src: string) =>
    `${path} is this daemon's own file (${src}) but edited by another hand and its records are gone: it is not the node's original`,
  originalLost: (path: string, src: string) =>
    `${path} is this daemon's own file (${src}) and the record of the node's own file it replaced is gone: it is left as it is`,
  drift: (path: string, putBack: boolean) =>
    putBack
      ? `${path} was changed by another hand: put the daemon's own file back (the kubelet still runs what it was started with); change the assignment instead`
      : `${path} was changed by another hand while the daemon was away: writing its own file again and restarting the kubelet`,
  localOverrides: (fields: string) =>
    `a node-local drop-in overrides fields of the assigned config, so the kubelet runs the local value: ${fields}`,
  keptAcrossRecreation: (what: string, src: string) =>
    `${what} was made again and assigns nothing: the kubelet keeps running ${src}, as status.config says, until it is assigned a config`,
  recreated: (node: string) => `created NodeConfig ${JSON.stringify(node)} again, owned by the Node as it is now`,
  recreateFailed: (why: string) => `failed to create the node's NodeConfig again, will try again: ${why}`,
  invalidOriginal: (path: string, why: string) =>
    `the record of the node's original files ${path} is unreadable: ${why}`,
  what: {
    assigned: (src: NodeConfigSource) => `assigned config ${describeSource(src)}`,
    lastKnownGood: (src: NodeConfigSource) => `last-known-good config ${describeSource(src)}`,
    original: "the node's original kubelet config",
    running: (src: NodeConfigSource) => `config ${describeSource(src)}, which the kubelet already runs`,
    unfinished: 'an earlier config',
  },
};
