// Strategic-merge metadata of the kinds we serve: which lists merge (and by which key) instead of
// being replaced. It transcribes the `patchStrategy`/`patchMergeKey` struct tags of the upstream Go
// types, because that is what kube-apiserver consults; a path with no entry merges as a map and
// replaces as a list, which is also how any kind without a table here is patched.

/** Patch metadata of one field. For a list of objects, `fields` describes each element. */
export interface PatchMeta {
  /** 'merge' lists are merged element-wise; any other list is replaced as a whole. */
  readonly listStrategy?: 'merge';
  /** Identifies elements of a merge list of objects; absent for merge lists of primitives (sets). */
  readonly mergeKey?: string;
  /** Metadata of nested fields, of this object or of each element of this list. */
  readonly fields?: Readonly<Record<string, PatchMeta>>;
}

const hasOwnProperty = Object.prototype.hasOwnProperty;

/** Metadata of a nested field, or undefined when the schema says nothing about it. */
export function childMeta(meta: PatchMeta | undefined, key: string): PatchMeta | undefined {
  const fields = meta?.fields;
  if (!fields || !hasOwnProperty.call(fields, key)) return undefined;
  return fields[key];
}

const set: PatchMeta = { listStrategy: 'merge' };
const byKey = (mergeKey: string, fields?: Record<string, PatchMeta>): PatchMeta =>
  fields ? { listStrategy: 'merge', mergeKey, fields } : { listStrategy: 'merge', mergeKey };

// metav1.ObjectMeta: Finalizers `patchStrategy:"merge"`, OwnerReferences `patchStrategy:"merge" patchMergeKey:"uid"`.
const objectMeta: PatchMeta = {
  fields: {
    finalizers: set,
    ownerReferences: byKey('uid'),
  },
};

// core/v1 NodeSpec.PodCIDRs (merge set; Taints carry no strategy) and NodeStatus.Conditions/Addresses
// (merge by type; Images, VolumesInUse, VolumesAttached are atomic).
const node: PatchMeta = {
  fields: {
    metadata: objectMeta,
    spec: { fields: { podCIDRs: set } },
    status: { fields: { conditions: byKey('type'), addresses: byKey('type') } },
  },
};

// core/v1 NamespaceStatus.Conditions merge by type; NamespaceSpec.Finalizers is atomic.
const namespace: PatchMeta = {
  fields: {
    metadata: objectMeta,
    status: { fields: { conditions: byKey('type') } },
  },
};

// core/v1 Container: Ports by containerPort, Env by name, VolumeMounts by mountPath, VolumeDevices by devicePath.
const container: Record<string, PatchMeta> = {
  ports: byKey('containerPort'),
  env: byKey('name'),
  volumeMounts: byKey('mountPath'),
  volumeDevices: byKey('devicePath'),
};

// core/v1 PodSpec/PodStatus: the merge lists a Pod carries; Tolerations and container statuses are atomic.
const pod: PatchMeta = {
  fields: {
    metadata: objectMeta,
    spec: {
      fields: {
        containers: byKey('name', container),
        initContainers: byKey('name', container),
        ephemeralContainers: byKey('name', container),
        volumes: byKey('name'),
        imagePullSecrets: byKey('name'),
        hostAliases: byKey('ip'),
        topologySpreadConstraints: byKey('topologyKey'),
        resourceClaims: byKey('name'),
        schedulingGates: byKey('name'),
      },
    },
    status: {
      fields: {
        conditions: byKey('type'),
        podIPs: byKey('ip'),
        hostIPs: byKey('ip'),
      },
    },
  },
};

// Kinds with no merge lists of their own still share ObjectMeta's.
const metaOnly: PatchMeta = { fields: { metadata: objectMeta } };

const schemas: Readonly<Record<string, PatchMeta>> = {
  Node: node,
  Namespace: namespace,
  Pod: pod,
  ConfigMap: metaOnly,
  Event: metaOnly,
  Lease: metaOnly,
};

/** The strategic-merge metadata of a kind, or undefined (plain map merge, list replace) if unknown. */
export function patchMetaForKind(kind: string): PatchMeta | undefined {
  return hasOwnProperty.call(schemas, kind) ? schemas[kind] : undefined;
}

/** Kinds with a schema here. */
export function knownPatchKinds(): string[] {
  return Object.keys(schemas);
}
