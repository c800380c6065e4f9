// What each kubelet minor after 1.22 adds by hand to its generated table (versions/kubelet-1.NN.ts): defaults its
// doc comments do not state or state wrongly, and validation rules. Every rule names the minor it arrived in; a
// rule on a field arrives with the field (the tables' `since`), a rule that changed later says where that is
// written. Sources: pkg/kubelet/apis/config/v1beta1/defaults.go and pkg/kubelet/apis/config/validation/
// validation.go of kubernetes/kubernetes (the newest revisions: defaults.go 030891da, validation.go 001332b0), the
// types.go doc comments of each tag, and CHANGELOG-1.NN. Messages are upstream's newest wording.
// The 1.22 behaviour itself stays in codec.ts and validation.ts, untouched by anything here.

import type { FeatureGates } from './validation.js';
import type { KubeletConfiguration, PartialKubeletConfiguration } from './types.js';
import { Duration, goQuote } from './values.js';
import { cleanPath } from './codec.js';
import { anyText } from '../util/text.js';

const IC = 'invalid configuration:';

type Obj = Record<string, unknown>;

/** A config of any minor: the 1.22 fields, typed, and the later ones by name. */
export type AnyKubeletConfiguration = KubeletConfiguration & { [field: string]: unknown };

const SECOND = 1_000_000_000n;
const durations = new Map<string, Duration>();
const d = (s: string): Duration => {
  let v = durations.get(s);
  if (v === undefined) durations.set(s, (v = Duration.parse(s)));
  return v;
};

/**
 * The defaults minor `minor` sets beyond 1.22's (applied after them, on a copy). `given` is what the payload said;
 * `on` answers for the gates the config will run with (defaults.go consults them for two fields).
 */
export function applyLaterDefaults(
  minor: number,
  given: PartialKubeletConfiguration,
  out: AnyKubeletConfiguration,
  on: (gate: string) => boolean,
): void {
  const g = given as Obj;
  const o = out as Obj;
  const unsetPtr = (k: string) => g[k] === undefined;
  const unsetValue = (k: string) => g[k] === undefined || g[k] === 0 || g[k] === '';
  if (minor >= 23) {
    // 1.23 made resolvConf a pointer (types.go v0.23.0): an explicit "" now survives defaulting.
    o['resolvConf'] = given.resolvConf ?? '/etc/resolv.conf';
    if (unsetPtr('registerNode')) o['registerNode'] = true;
  }
  if (minor >= 23) {
    // logsapi's SetRecommendedLoggingConfiguration (component-base): text, flush every 5s, verbosity 0.
    const logging = { ...((g['logging'] as Obj | undefined) ?? {}) };
    if (logging['format'] === undefined || logging['format'] === '') logging['format'] = 'text';
    if (
      logging['flushFrequency'] === undefined ||
      logging['flushFrequency'] === 0 ||
      logging['flushFrequency'] === '0s'
    ) {
      // time.Duration (nanoseconds) until 1.25, TimeOrMetaDuration (a duration string) from 1.26.
      logging['flushFrequency'] = minor >= 26 ? '5s' : 5_000_000_000;
    }
    if (logging['verbosity'] === undefined) logging['verbosity'] = 0;
    o['logging'] = logging;
  }
  if (minor >= 25 && unsetPtr('localStorageCapacityIsolation')) o['localStorageCapacityIsolation'] = true;
  if (minor >= 27) {
    // types.go v0.27.0: the API client and event limits rose tenfold, memoryThrottlingFactor to 0.9.
    if (unsetPtr('eventRecordQPS')) o['eventRecordQPS'] = 50;
    if (unsetValue('eventBurst')) o['eventBurst'] = 100;
    if (unsetPtr('kubeAPIQPS')) o['kubeAPIQPS'] = 50;
    if (unsetValue('kubeAPIBurst')) o['kubeAPIBurst'] = 100;
    if (unsetPtr('memoryThrottlingFactor')) o['memoryThrottlingFactor'] = 0.9;
    if (unsetValue('containerRuntimeEndpoint'))
      o['containerRuntimeEndpoint'] = 'unix:///run/containerd/containerd.sock';
    // serializeImagePulls defaults to false when maxParallelImagePulls allows parallel pulls.
    const parallel = g['maxParallelImagePulls'] as number | undefined;
    if (unsetPtr('serializeImagePulls')) o['serializeImagePulls'] = parallel === undefined || parallel < 2;
  }
  if (minor >= 30) {
    // defaults.go: DefaultPodLogsDir has no trailing slash (the doc comment's "/var/log/pods/" fails its own
    // validation, which wants a clean path).
    if (unsetValue('podLogsDir')) o['podLogsDir'] = '/var/log/pods';
    if (unsetPtr('containerLogMaxWorkers')) o['containerLogMaxWorkers'] = 1;
    if (unsetPtr('containerLogMonitorInterval')) o['containerLogMonitorInterval'] = d('10s');
  }
  // failCgroupV1: false from 1.31, true from 1.35 (types.go v0.35.0).
  if (minor >= 31 && unsetPtr('failCgroupV1')) o['failCgroupV1'] = minor >= 35;
  if (minor >= 32 && on('KubeletCrashLoopBackOffMax')) {
    const c = { ...((g['crashLoopBackOff'] as Obj | undefined) ?? {}) };
    if (c['maxContainerRestartPeriod'] === undefined) c['maxContainerRestartPeriod'] = d('300s');
    o['crashLoopBackOff'] = c;
  }
  if (minor >= 33) {
    if (unsetPtr('mergeDefaultEvictionSettings')) o['mergeDefaultEvictionSettings'] = false;
    if (on('KubeletEnsureSecretPulledImages') && unsetValue('imagePullCredentialsVerificationPolicy')) {
      o['imagePullCredentialsVerificationPolicy'] = 'NeverVerifyPreloadedImages';
    }
  }
  if (minor >= 36 && unsetValue('memoryReservationPolicy')) o['memoryReservationPolicy'] = 'None';
}

const ns = (v: unknown): bigint => (v instanceof Duration ? v.nanoseconds : 0n);
const text = (v: unknown): string => (v instanceof Duration ? v : Duration.zero).toString();

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function taintText(t: Obj): string {
  const key = anyText(t['key'] ?? '');
  const value = anyText(t['value'] ?? '');
  const effect = anyText(t['effect'] ?? '');
  return `${key}${value === '' ? '' : `=${value}`}:${effect}`;
}

/** validation.go's rules for fields and behaviour after 1.22, in its order; each applies from the minor it names. */
export function laterRules(minor: number, kc: AnyKubeletConfiguration, gates: FeatureGates): string[] {
  const e: string[] = [];
  const on = (g: string) => gates.on(g);
  const c = kc as Obj;
  if (minor >= 29) {
    const maxAge = c['imageMaximumGCAge'];
    if (ns(maxAge) !== 0n && !on('ImageMaximumGCAge')) {
      e.push(`${IC} ImageMaximumGCAge feature gate is required for Kubelet configuration option imageMaximumGCAge`);
    }
    if (ns(kc.imageMinimumGCAge) < 0n)
      e.push(`${IC} imageMinimumGCAge ${text(kc.imageMinimumGCAge)} must not be negative`);
    if (ns(maxAge) < 0n) e.push(`${IC} imageMaximumGCAge ${text(maxAge)} must not be negative`);
    if (ns(maxAge) > 0n && ns(maxAge) <= ns(kc.imageMinimumGCAge)) {
      e.push(
        `${IC} imageMaximumGCAge ${text(maxAge)} must be greater than imageMinimumGCAge ${text(kc.imageMinimumGCAge)}`,
      );
    }
  }
  if (minor >= 27) {
    const parallel = c['maxParallelImagePulls'] as number | undefined;
    if (parallel !== undefined && parallel < 1)
      e.push(`${IC} maxParallelImagePulls ${parallel} must be a positive number`);
    if (kc.serializeImagePulls && parallel !== undefined && parallel > 1) {
      e.push(
        `${IC} maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false`,
      );
    }
  }
  if (minor >= 23) {
    for (const t of (c['registerWithTaints'] as Obj[] | undefined) ?? []) {
      const key = anyText(t['key'] ?? '');
      const value = anyText(t['value'] ?? '');
      const badKey = key === '' || key.length > 316 || !QUALIFIED_NAME.test(key);
      const badValue = value.length > 63 || !LABEL_VALUE.test(value);
      if (badKey || badValue || !TAINT_EFFECTS.includes(anyText(t['effect'] ?? '')))
        e.push(`invalid taint: ${taintText(t)}`);
      // 1.24 gave the message its prefix and the field's path (kubernetes/kubernetes#105360).
      const timeAdded = minor >= 24 ? `${IC} taint.TimeAdded is not nil` : 'taint TimeAdded is not nil';
      if (t['timeAdded'] !== undefined && t['timeAdded'] !== null) e.push(timeAdded);
    }
    const byPriority = (c['shutdownGracePeriodByPodPriority'] as unknown[] | undefined) ?? [];
    const plain = ns(kc.shutdownGracePeriod) > 0n || ns(kc.shutdownGracePeriodCriticalPods) > 0n;
    if (on('GracefulNodeShutdownBasedOnPodPriority') && byPriority.length !== 0 && plain) {
      e.push(`${IC} Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time`);
    }
    if (!on('GracefulNodeShutdownBasedOnPodPriority') && byPriority.length !== 0) {
      e.push(
        `${IC} Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority`,
      );
    }
  }
  if (minor >= 32) {
    const period = ((c['crashLoopBackOff'] as Obj | undefined) ?? {})['maxContainerRestartPeriod'];
    if (on('KubeletCrashLoopBackOffMax')) {
      if (period === undefined)
        e.push(
          `${IC} FeatureGate KubeletCrashLoopBackOffMax is enabled, CrashLoopBackOff.MaxContainerRestartPeriod must be set`,
        );
      else if (ns(period) < SECOND || ns(period) > 300n * SECOND) {
        const seconds = Number(ns(period)) / 1e9;
        e.push(
          `${IC} CrashLoopBackOff.MaxContainerRestartPeriod (got: ${seconds} seconds) must be set between 1s and 300s`,
        );
      }
    } else if (period !== undefined) {
      e.push(
        `${IC} FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set`,
      );
    }
  }
  if (minor >= 33) {
    const policy = anyText(c['imagePullCredentialsVerificationPolicy'] ?? '');
    const allow = (c['preloadedImagesVerificationAllowlist'] as string[] | undefined) ?? [];
    const policies = ['NeverVerify', 'NeverVerifyPreloadedImages', 'NeverVerifyAllowlistedImages', 'AlwaysVerify'];
    if (on('KubeletEnsureSecretPulledImages')) {
      if (!policies.includes(policy)) {
        e.push(
          `${IC} option ${goQuote(policy)} specified for imagePullCredentialsVerificationPolicy. Valid options are ${policies.slice(0, 3).map(goQuote).join(', ')} or ${goQuote(policies[3]!)}`,
        );
      }
      if (allow.length > 0 && policy !== 'NeverVerifyAllowlistedImages') {
        e.push(
          `${IC} can't set \`preloadedImagesVerificationAllowlist\` if \`imagePullCredentialsVertificationPolicy\` is not "NeverVerifyAllowlistedImages"`,
        );
      }
    } else {
      if (policy.length > 0)
        e.push(
          `${IC} \`imagePullCredentialsVerificationPolicy\` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled`,
        );
      if (allow.length > 0)
        e.push(
          `${IC} \`preloadedImagesVerificationAllowlist\` must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled`,
        );
    }
  }
  if (minor >= 36) {
    const policy = anyText(c['memoryReservationPolicy'] ?? '');
    if (!on('MemoryQoS') && policy === 'TieredReservation') {
      e.push(`${IC} memoryReservationPolicy ${goQuote(policy)} requires MemoryQoS feature gate to be enabled`);
    }
    if (policy !== 'None' && policy !== 'TieredReservation') {
      e.push(
        `${IC} option ${goQuote(policy)} specified for memoryReservationPolicy. Valid options are "None" or "TieredReservation"`,
      );
    }
  }
  if (minor >= 27) {
    if (c['containerRuntimeEndpoint'] === '' || c['containerRuntimeEndpoint'] === undefined) {
      e.push(`${IC} the containerRuntimeEndpoint was not specified or empty`);
    }
    if (c['enableSystemLogQuery'] === true && !on('NodeLogQuery'))
      e.push(`${IC} NodeLogQuery feature gate is required for enableSystemLogQuery`);
    if (c['enableSystemLogQuery'] === true && !kc.enableSystemLogHandler)
      e.push(`${IC} enableSystemLogHandler is required for enableSystemLogQuery`);
  }
  if (minor >= 30) {
    if (((c['containerLogMaxWorkers'] as number | undefined) ?? 0) < 1)
      e.push(`${IC} containerLogMaxWorkers must be greater than or equal to 1`);
    if (ns(c['containerLogMonitorInterval']) < 3n * SECOND) {
      e.push(`${IC} containerLogMonitorInterval must be a positive time duration greater than or equal to 3s`);
    }
    const dir = anyText(c['podLogsDir'] ?? '');
    if (dir === '') e.push(`${IC} podLogsDir was not specified`);
    if (!dir.startsWith('/')) e.push(`${IC} pod logs path ${goQuote(dir)} must be absolute path`);
    if (!isClean(dir)) e.push(`${IC} pod logs path ${goQuote(dir)} must be normalized`);
    // upstream's own spelling
    if ([...dir].some((ch) => ch.codePointAt(0)! > 0x7f))
      e.push(`${IC} pod logs path ${goQuote(dir)} mut contains ASCII characters only`);
  }
  return e;
}

/** filepath.Clean(p) == p, as utilfs.IsPathClean asks. */
function isClean(p: string): boolean {
  return p !== '' && cleanPath(p) === p;
}
