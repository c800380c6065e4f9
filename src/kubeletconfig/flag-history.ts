// Which config flags each kubelet minor registers, as changes against 1.22's (the TABLE of flags.ts). Facts, with
// where each came from; flags.ts applies them. The flags are those cmd/kubelet/app/options/options.go
// AddKubeletConfigFlags registers (with the logging flags component-base binds to KubeletConfiguration.logging), read
// as kubeedge/kubeedge vendors that file at its release tags, whose go.mod pins k8s.io/kubernetes: v1.22.6 (tag
// v1.12.0), v1.23.15 (v1.13.0), v1.24.14 (v1.14.0), v1.26.7 (v1.15.0), v1.27.7 (v1.16.0), v1.28.6 (v1.17.0), v1.29.6
// (v1.18.0), v1.30.7 (v1.20.0), v1.31.12 (v1.22.0), v1.32.10 (v1.23.0). No copy of 1.25 or of 1.33 and later was
// found: a change between 1.24.14 and 1.26.7 is dated by the pull request or the field it sets, and 1.33 … 1.36 are
// taken to register 1.32's flags.

/** How a flag's value is parsed and set (pflag's Value types the kubelet uses). */
export type FlagType =
  | 'bool'
  | 'int32'
  | 'int64'
  | 'string'
  | 'ip'
  | 'duration'
  | 'stringSlice'
  | 'mapStringString'
  | 'mapStringStringNoSplit'
  | 'langleMap'
  | 'colonMultimap'
  | 'mapStringBool'
  | 'reservedMemory';

/** A config flag 1.22 does not have: name, field, type, the first minor that registers it, and the source. */
export type AddedFlag = readonly [name: string, field: string, type: FlagType, since: number, source: string];

export const ADDED_FLAGS: readonly AddedFlag[] = [
  [
    'register-node',
    'registerNode',
    'bool',
    23,
    'options.go at v1.23.15 (kubeedge v1.13.0); at v1.22.6 a KubeletFlags flag',
  ],
  [
    'local-storage-capacity-isolation',
    'localStorageCapacityIsolation',
    'bool',
    25,
    'options.go at v1.26.7 (kubeedge v1.15.0), not at v1.24.14; its field is new in k8s.io/kubelet v0.25.0',
  ],
  [
    'topology-manager-policy-options',
    'topologyManagerPolicyOptions',
    'mapStringString',
    26,
    'options.go at v1.26.7 (kubeedge v1.15.0), not at v1.24.14; its field is new in k8s.io/kubelet v0.26.0',
  ],
  [
    'container-runtime-endpoint',
    'containerRuntimeEndpoint',
    'string',
    27,
    'options.go at v1.27.7 (kubeedge v1.16.0); at v1.26.7 a KubeletFlags flag',
  ],
  [
    'image-service-endpoint',
    'imageServiceEndpoint',
    'string',
    27,
    'options.go at v1.27.7 (kubeedge v1.16.0); at v1.26.7 a KubeletFlags flag',
  ],
  ['fail-cgroupv1', 'failCgroupV1', 'bool', 31, 'options.go at v1.31.12 (kubeedge v1.22.0), not at v1.30.7'],
];

/** A 1.22 config flag a later kubelet dropped: name, the last minor that registers it, and the source. */
export type RemovedFlag = readonly [name: string, last: number, source: string];

export const REMOVED_FLAGS: readonly RemovedFlag[] = [
  [
    'experimental-logging-sanitization',
    23,
    'k8s.io/component-base logs/config.go BindLoggingFlags at v0.23.0 binds it, at v0.24.0 not',
  ],
  [
    'experimental-kernel-memcg-notification',
    24,
    'options.go at v1.24.14 (kubeedge v1.14.0), not at v1.26.7; kubernetes/kubernetes#109388 (merged 2022-06-03, 1.25)',
  ],
];

/**
 * Flags a kubelet registers outside KubeletConfiguration before they became config flags (KubeletFlags.AddFlags):
 * name and the last minor where that is so. Such a flag is the kubelet's, so not refused, only not a config flag.
 */
export const EARLIER_NON_CONFIG_FLAGS: ReadonlyMap<string, number> = new Map([
  ['register-node', 22],
  ['container-runtime-endpoint', 26],
  ['image-service-endpoint', 26],
]);
