// OpenAPI v3 component schemas for the kinds this server serves, under upstream's definition names
// (io.k8s.api.core.v1.Node, io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta, ...). kubectl explain
// renders these texts, and kubectl's strategic-merge-patch and list handling read the x-kubernetes-*
// extensions, so names, structure and extensions follow upstream while the descriptions are our own.

export type JsonSchema = { [key: string]: unknown };

export const CORE = 'io.k8s.api.core.v1.';
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const COORDINATION = 'io.k8s.api.coordination.v1.';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ description, type: 'string', ...extra });
const bool = (description: string): JsonSchema => ({ description, type: 'boolean' });
const int32 = (description: string): JsonSchema => ({ description, type: 'integer', format: 'int32' });
const int64 = (description: string): JsonSchema => ({ description, type: 'integer', format: 'int64' });

/** An embedded struct: OpenAPI 3.0 forbids siblings next to $ref, hence allOf. */
const embedded = (name: string, description: string): JsonSchema => ({ allOf: [ref(name)], default: {}, description });
/** An optional (pointer) struct. */
const optional = (name: string, description: string): JsonSchema => ({ allOf: [ref(name)], description });
const time = (description: string): JsonSchema => optional(`${META}Time`, description);
const microTime = (description: string): JsonSchema => optional(`${META}MicroTime`, description);

const arrayOf = (items: JsonSchema, description: string, extensions: JsonSchema = {}): JsonSchema => ({
  description,
  type: 'array',
  items,
  ...extensions,
});
const structs = (name: string): JsonSchema => ({ allOf: [ref(name)], default: {} });
const strings: JsonSchema = { type: 'string', default: '' };
const stringMap = (description: string): JsonSchema => ({ description, type: 'object', additionalProperties: strings });

const atomic = { 'x-kubernetes-list-type': 'atomic' };
const set = { 'x-kubernetes-list-type': 'set' };
const mergeByType = {
  'x-kubernetes-list-map-keys': ['type'],
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-patch-merge-key': 'type',
  'x-kubernetes-patch-strategy': 'merge',
};

const apiVersionField = str(
  'The versioned schema of this representation of the object, e.g. "v1". Clients send it and the server fills it in on every object it returns.',
);
const kindField = str('The kind of REST resource this object represents, in CamelCase. Cannot be updated.');
const objectMeta = (what: string): JsonSchema =>
  embedded(`${META}ObjectMeta`, `Standard object metadata of the ${what}: name, namespace, labels, annotations and the fields the server maintains.`);
const listMeta = embedded(`${META}ListMeta`, 'Standard list metadata, including the resourceVersion to watch from.');

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

function kindSchema(description: string, gvk: Gvk, properties: JsonSchema, required?: string[]): JsonSchema {
  return {
    description,
    type: 'object',
    ...(required ? { required } : {}),
    properties: { apiVersion: apiVersionField, kind: kindField, ...properties },
    'x-kubernetes-group-version-kind': [gvk],
  };
}

function listSchema(itemName: string, gvk: Gvk, what: string): JsonSchema {
  return kindSchema(`A list of ${what}.`, gvk, { items: arrayOf(structs(itemName), `The ${what}.`), metadata: listMeta }, ['items']);
}

function struct(description: string, properties: JsonSchema, required?: string[], extra: JsonSchema = {}): JsonSchema {
  return { description, type: 'object', ...(required ? { required } : {}), properties, ...extra };
}

const core = (kind: string): Gvk => ({ group: '', version: 'v1', kind });
const coordination = (kind: string): Gvk => ({ group: 'coordination.k8s.io', version: 'v1', kind });

const configMapRefText = {
  namespace:
    'Namespace of the referenced ConfigMap. Required, both in spec.configSource and in every status.config source.',
  name: 'Name of the referenced ConfigMap. Required, both in spec.configSource and in every status.config source.',
  uid: 'UID of the referenced ConfigMap. Forbidden in spec.configSource (uid must not be set in spec); required in status.config, where the node reports exactly which object it checkpointed.',
  resourceVersion:
    'ResourceVersion of the referenced ConfigMap. Forbidden in spec.configSource (resourceVersion must not be set in spec); required in status.config, where the node reports exactly which version it checkpointed.',
  kubeletConfigKey:
    'The key of the referenced ConfigMap whose value is the KubeletConfiguration (kubelet.config.k8s.io/v1beta1) to use. Required in all cases.',
};

/** Every component schema this server can publish, keyed by upstream definition name. */
export const schemas: Readonly<Record<string, JsonSchema>> = {
  // --- apimachinery ---------------------------------------------------------------------------------
  [`${META}Time`]: {
    description: 'A timestamp, serialised as an RFC 3339 string in UTC with whole seconds, e.g. "2024-05-01T12:00:00Z".',
    type: 'string',
    format: 'date-time',
  },
  [`${META}MicroTime`]: {
    description: 'A timestamp with microsecond precision, serialised as RFC 3339 with six fractional digits, e.g. "2024-05-01T12:00:00.000000Z".',
    type: 'string',
    format: 'date-time',
  },
  [QUANTITY]: {
    description:
      'A fixed-point amount such as "4", "500m", "8Gi" or "1e3": a number followed by an optional decimal or binary SI suffix. Always written as a string.',
    oneOf: [{ type: 'string' }, { type: 'number' }],
  },
  [`${META}ObjectMeta`]: struct('Metadata that every persisted object carries.', {
    annotations: stringMap('Unstructured key/value data for tools and humans; not used for selection.'),
    creationTimestamp: time('When the server created the object. Set by the server, read-only; null for objects that were never stored.'),
    deletionGracePeriodSeconds: int64('Seconds the object is allowed to terminate gracefully once deletion was requested. Read-only.'),
    deletionTimestamp: time('When the object will be or was deleted, set by the server when a graceful deletion is requested. Read-only.'),
    finalizers: arrayOf(strings, 'Entries that must be removed before the object is deleted from storage.', {
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    generateName: str('A prefix from which the server derives a unique name when name is empty.'),
    generation: int64('A sequence number for changes to the desired state, maintained by the server. Read-only.'),
    labels: stringMap('Key/value pairs used to organise and select objects, e.g. by kubectl -l.'),
    managedFields: arrayOf(structs(`${META}ManagedFieldsEntry`), 'Which manager owns which fields; maintained by the server.', atomic),
    name: str('Unique name of the object within its namespace (or the cluster, for cluster-scoped kinds). Cannot be updated.'),
    namespace: str('The namespace the object lives in; empty for cluster-scoped kinds such as Node. Cannot be updated.'),
    ownerReferences: arrayOf(structs(`${META}OwnerReference`), 'Objects this object depends on; it is garbage-collected after all owners are gone.', {
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    resourceVersion: str(
      'An opaque version of this object, changed by the server on every write. Used for optimistic concurrency on updates and as the starting point of watches.',
    ),
    selfLink: str('Deprecated and never set by this server.'),
    uid: str('Unique identifier of this object for its whole lifetime, generated by the server. Read-only.'),
  }),
  [`${META}ListMeta`]: struct('Metadata of a list response.', {
    continue: str('Token for fetching the next page of a limited list; empty when the list is complete.'),
    remainingItemCount: int64('Number of items not yet returned by a limited list, when known.'),
    resourceVersion: str('The version of the collection this list reflects; watch from it to receive every later change.'),
    selfLink: str('Deprecated and never set by this server.'),
  }),
  [`${META}OwnerReference`]: struct(
    'Identifies an owner of an object.',
    {
      apiVersion: str('API version of the owner.'),
      blockOwnerDeletion: bool('If true, the owner cannot be deleted in the foreground until this reference is removed.'),
      controller: bool('If true, this owner is the managing controller.'),
      kind: str('Kind of the owner.'),
      name: str('Name of the owner.'),
      uid: str('UID of the owner.'),
    },
    ['apiVersion', 'kind', 'name', 'uid'],
    { 'x-kubernetes-map-type': 'atomic' },
  ),
  [`${META}ManagedFieldsEntry`]: struct('The fields one manager set through one operation.', {
    apiVersion: str('API version of the fields in fieldsV1.'),
    fieldsType: str('Format of the fields entry; only "FieldsV1" exists.'),
    fieldsV1: optional(`${META}FieldsV1`, 'The set of owned fields.'),
    manager: str('Identifier of the workflow managing these fields, e.g. "kubectl-edit".'),
    operation: str('"Apply" or "Update".'),
    subresource: str('The subresource the operation was made through, e.g. "status"; empty for the main resource.'),
    time: time('When these fields were last changed by this manager.'),
  }),
  [`${META}FieldsV1`]: { description: 'A set of field paths in the structured-merge-diff JSON format.', type: 'object' },
  [`${META}Patch`]: {
    description: 'A patch body: a JSON Patch, a JSON merge patch, a strategic merge patch or an apply configuration, as the Content-Type says.',
    type: 'object',
  },
  [`${META}Preconditions`]: struct('Conditions that must hold for a delete to proceed.', {
    resourceVersion: str('The resourceVersion the object must still have.'),
    uid: str('The UID the object must still have.'),
  }),
  [`${META}DeleteOptions`]: kindSchema('Options for a delete request.', core('DeleteOptions'), {
    dryRun: arrayOf(strings, 'When "All", validate the deletion without persisting it.', atomic),
    gracePeriodSeconds: int64('Seconds before the object is deleted; zero means immediately.'),
    orphanDependents: bool('Deprecated: use propagationPolicy. Whether dependents are orphaned.'),
    preconditions: optional(`${META}Preconditions`, 'Must be fulfilled before the deletion is carried out.'),
    propagationPolicy: str('How dependents are garbage-collected: "Orphan", "Background" or "Foreground".'),
  }),
  [`${META}StatusCause`]: struct('One reason a request failed, often tied to a field.', {
    field: str('The field that caused the error, in JSON path form such as "spec.configSource.configMap.namespace".'),
    message: str('A human-readable description of the cause.'),
    reason: str('A machine-readable cause, e.g. "FieldValueRequired".'),
  }),
  [`${META}StatusDetails`]: struct('Extra, reason-specific detail of a Status.', {
    causes: arrayOf(structs(`${META}StatusCause`), 'The individual causes, e.g. one per invalid field.', atomic),
    group: str('API group of the resource the status is about.'),
    kind: str('The resource (for NotFound/AlreadyExists) or kind (for Invalid) the status is about.'),
    name: str('Name of the object the status is about.'),
    retryAfterSeconds: int32('Seconds the client should wait before retrying.'),
    uid: str('UID of the object the status is about.'),
  }),
  [`${META}Status`]: kindSchema('The result of a request that does not return an object, notably every error.', core('Status'), {
    code: int32('HTTP status code of this status.'),
    details: optional(`${META}StatusDetails`, 'Reason-specific detail.'),
    message: str('A human-readable description of the result.'),
    metadata: listMeta,
    reason: str('A machine-readable reason such as "NotFound", "AlreadyExists" or "Invalid".'),
    status: str('"Success" or "Failure".'),
  }),

  // --- Node -------------------------------------------------------------------------------------------
  [`${CORE}Node`]: kindSchema(
    'A machine running a kubelet. Its spec says how it should be configured, including which ConfigMap the kubelet takes its configuration from; its status reports what the node observed.',
    core('Node'),
    {
      metadata: objectMeta('node'),
      spec: embedded(`${CORE}NodeSpec`, 'Desired state of the node, including spec.configSource.'),
      status: embedded(`${CORE}NodeStatus`, 'Observed state of the node, reported by its agent. Written through the status subresource.'),
    },
  ),
  [`${CORE}NodeList`]: listSchema(`${CORE}Node`, core('NodeList'), 'nodes'),
  [`${CORE}NodeSpec`]: struct('Desired state of a node.', {
    configSource: optional(
      `${CORE}NodeConfigSource`,
      "Where the kubelet should take its configuration from (Dynamic Kubelet Configuration). When set, the node agent downloads the referenced ConfigMap, checkpoints it, and restarts the kubelet with it, falling back to the last known good configuration if it fails; when cleared, the kubelet returns to its local configuration. Upstream Kubernetes deprecated this field in 1.22 and removed the feature in 1.24; this server keeps it working.",
    ),
    externalID: str('Deprecated. Not used.'),
    podCIDR: str('The pod IP range assigned to the node.'),
    podCIDRs: arrayOf(strings, 'The pod IP ranges assigned to the node, at most one per IP family; the first equals podCIDR.', {
      'x-kubernetes-list-type': 'set',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    providerID: str('The ID the cloud provider gave the node, as <ProviderName>://<ProviderSpecificNodeID>.'),
    taints: arrayOf(structs(`${CORE}Taint`), "The node's taints.", atomic),
    unschedulable: bool('Whether new pods may be scheduled onto the node; false by default.'),
  }),
  [`${CORE}NodeConfigSource`]: struct(
    'A source of kubelet configuration for a node. Exactly one source must be set; the only kind of source is configMap.',
    {
      configMap: optional(`${CORE}ConfigMapNodeConfigSource`, 'A reference to a ConfigMap holding the kubelet configuration.'),
    },
  ),
  [`${CORE}ConfigMapNodeConfigSource`]: struct(
    'A reference to a ConfigMap used as a node\'s configuration source. In spec.configSource only namespace, name and kubeletConfigKey may be set; in status.config (assigned, active, lastKnownGood) uid and resourceVersion are also required.',
    {
      kubeletConfigKey: str(configMapRefText.kubeletConfigKey),
      name: str(configMapRefText.name),
      namespace: str(configMapRefText.namespace),
      resourceVersion: str(configMapRefText.resourceVersion),
      uid: str(configMapRefText.uid),
    },
    ['namespace', 'name', 'kubeletConfigKey'],
  ),
  [`${CORE}NodeConfigStatus`]: struct(
    "How far the node got in applying spec.configSource. Reported by the node agent; each source names the exact ConfigMap (uid and resourceVersion included).",
    {
      active: optional(
        `${CORE}NodeConfigSource`,
        'The configuration the kubelet is running with: the assigned one, or lastKnownGood after the assigned one failed.',
      ),
      assigned: optional(
        `${CORE}NodeConfigSource`,
        'The configuration the node has checkpointed and intends to use, updated once the download from spec.configSource is stored locally.',
      ),
      error: str(
        'What went wrong reconciling spec.configSource with the active configuration, e.g. a failed download, an unparsable or invalid KubeletConfiguration, or a kubelet that did not come up. Empty when all is well.',
      ),
      lastKnownGood: optional(
        `${CORE}NodeConfigSource`,
        'The configuration the node falls back to if the assigned one fails. An assigned configuration becomes last-known-good after it ran healthily for a while; null means the local configuration.',
      ),
    },
  ),
  [`${CORE}NodeStatus`]: struct('Observed state of a node.', {
    addresses: arrayOf(structs(`${CORE}NodeAddress`), 'Addresses at which the node is reachable.', mergeByType),
    allocatable: { description: 'Resources available to pods; defaults to capacity.', type: 'object', additionalProperties: ref(QUANTITY) },
    capacity: { description: 'Total resources of the node.', type: 'object', additionalProperties: ref(QUANTITY) },
    conditions: arrayOf(structs(`${CORE}NodeCondition`), 'Current conditions of the node, such as Ready.', mergeByType),
    config: optional(`${CORE}NodeConfigStatus`, 'Status of the configuration assigned through spec.configSource.'),
    daemonEndpoints: embedded(`${CORE}NodeDaemonEndpoints`, 'Endpoints of the daemons running on the node.'),
    images: arrayOf({ type: 'object' }, 'Container images present on the node.', atomic),
    nodeInfo: embedded(`${CORE}NodeSystemInfo`, 'Identifiers and versions reported by the node.'),
    phase: str('Deprecated; never set.'),
    volumesAttached: arrayOf({ type: 'object' }, 'Volumes attached to the node.', atomic),
    volumesInUse: arrayOf(strings, 'Volumes in use on the node.', atomic),
  }),
  [`${CORE}NodeCondition`]: struct(
    'One aspect of the node\'s state.',
    {
      lastHeartbeatTime: time('When the condition was last reported.'),
      lastTransitionTime: time('When the status last changed.'),
      message: str('Human-readable detail of the last transition.'),
      reason: str('Machine-readable reason for the last transition, in CamelCase.'),
      status: str('"True", "False" or "Unknown".'),
      type: str('Type of the condition, e.g. "Ready".'),
    },
    ['type', 'status'],
  ),
  [`${CORE}NodeAddress`]: struct(
    'An address of the node.',
    { address: str('The address.'), type: str('"Hostname", "InternalIP", "ExternalIP", "InternalDNS" or "ExternalDNS".') },
    ['type', 'address'],
  ),
  [`${CORE}NodeSystemInfo`]: struct(
    'Identifiers and versions reported by the node.',
    {
      architecture: str('CPU architecture, e.g. "amd64".'),
      bootID: str('Boot ID of the node.'),
      containerRuntimeVersion: str('Container runtime name and version, e.g. "containerd://1.7.0".'),
      kernelVersion: str('Kernel version from uname -r.'),
      kubeProxyVersion: str('Deprecated kube-proxy version.'),
      kubeletVersion: str('Version of the kubelet.'),
      machineID: str('Machine ID of the node (/etc/machine-id).'),
      operatingSystem: str('Operating system, e.g. "linux".'),
      osImage: str('OS image from /etc/os-release.'),
      systemUUID: str('System UUID of the node.'),
    },
    [
      'machineID',
      'systemUUID',
      'bootID',
      'kernelVersion',
      'osImage',
      'containerRuntimeVersion',
      'kubeletVersion',
      'kubeProxyVersion',
      'operatingSystem',
      'architecture',
    ],
  ),
  [`${CORE}NodeDaemonEndpoints`]: struct('Ports opened by daemons on the node.', {
    kubeletEndpoint: embedded(`${CORE}DaemonEndpoint`, 'The endpoint the kubelet listens on.'),
  }),
  [`${CORE}DaemonEndpoint`]: struct('One daemon endpoint.', { Port: int32('Port number of the endpoint.') }, ['Port']),
  [`${CORE}Taint`]: struct(
    'A taint repels pods that do not tolerate it.',
    {
      effect: str('"NoSchedule", "PreferNoSchedule" or "NoExecute".'),
      key: str('The taint key.'),
      timeAdded: time('When a NoExecute taint was added.'),
      value: str('The taint value.'),
    },
    ['key', 'effect'],
  ),

  // --- ConfigMap ----------------------------------------------------------------------------------------
  [`${CORE}ConfigMap`]: kindSchema(
    'Configuration data as key/value pairs. Node configurations are ConfigMaps whose kubeletConfigKey entry holds a KubeletConfiguration; create them with kubectl create configmap --from-file --append-hash so every change gets a new name.',
    core('ConfigMap'),
    {
      binaryData: {
        description: 'Binary values, base64-encoded in JSON. Keys follow the same rules as data and must not repeat a data key.',
        type: 'object',
        additionalProperties: { type: 'string', format: 'byte' },
      },
      data: stringMap(
        'UTF-8 values. Each key consists of alphanumerics, "-", "_" or "."; values that are not valid UTF-8 belong in binaryData.',
      ),
      immutable: bool('If true, data and binaryData can no longer be changed; only metadata can. Cannot be reverted.'),
      metadata: objectMeta('ConfigMap'),
    },
  ),
  [`${CORE}ConfigMapList`]: listSchema(`${CORE}ConfigMap`, core('ConfigMapList'), 'ConfigMaps'),

  // --- Namespace ----------------------------------------------------------------------------------------
  [`${CORE}Namespace`]: kindSchema('A scope for names of namespaced objects such as ConfigMaps and Events.', core('Namespace'), {
    metadata: objectMeta('namespace'),
    spec: embedded(`${CORE}NamespaceSpec`, 'Desired state of the namespace.'),
    status: embedded(`${CORE}NamespaceStatus`, 'Observed state of the namespace.'),
  }),
  [`${CORE}NamespaceList`]: listSchema(`${CORE}Namespace`, core('NamespaceList'), 'namespaces'),
  [`${CORE}NamespaceSpec`]: struct('Desired state of a namespace.', {
    finalizers: arrayOf(strings, 'Values that must be removed before the namespace is deleted from storage.', atomic),
  }),
  [`${CORE}NamespaceStatus`]: struct('Observed state of a namespace.', {
    conditions: arrayOf(structs(`${CORE}NamespaceCondition`), 'Latest observations of the namespace.', mergeByType),
    phase: str('"Active" or "Terminating".'),
  }),
  [`${CORE}NamespaceCondition`]: struct(
    'One aspect of the namespace\'s state.',
    {
      lastTransitionTime: time('When the status last changed.'),
      message: str('Human-readable detail.'),
      reason: str('Machine-readable reason.'),
      status: str('"True", "False" or "Unknown".'),
      type: str('Type of the condition.'),
    },
    ['type', 'status'],
  ),

  // --- Event --------------------------------------------------------------------------------------------
  [`${CORE}Event`]: kindSchema(
    'A report of something that happened to an object, e.g. a node agent applying or rejecting a configuration. Best-effort and short-lived.',
    core('Event'),
    {
      action: str('What was done or failed with the object.'),
      count: int32('How many times the event occurred.'),
      eventTime: microTime('When the event was first observed, with microsecond precision.'),
      firstTimestamp: time('When the event was first recorded.'),
      involvedObject: embedded(`${CORE}ObjectReference`, 'The object the event is about.'),
      lastTimestamp: time('When the event was most recently recorded.'),
      message: str('Human-readable description of what happened.'),
      metadata: objectMeta('event'),
      reason: str('Short, machine-readable reason in CamelCase, e.g. "KubeletConfigChanged".'),
      related: optional(`${CORE}ObjectReference`, 'A secondary object involved, if any.'),
      reportingComponent: str('Name of the reporting component, e.g. "kubelet".', { default: '' }),
      reportingInstance: str('Instance of the reporting component, e.g. the node name.', { default: '' }),
      series: { description: 'Data about a series of repeated events; null for a one-off.', type: 'object' },
      source: embedded(`${CORE}EventSource`, 'The component that reported the event.'),
      type: str('"Normal" or "Warning".'),
    },
    ['metadata', 'involvedObject'],
  ),
  [`${CORE}EventList`]: listSchema(`${CORE}Event`, core('EventList'), 'events'),
  [`${CORE}EventSource`]: struct('The component that reported an event.', {
    component: str('Reporting component, e.g. "kubelet".'),
    host: str('Node on which the event was generated.'),
  }),
  [`${CORE}ObjectReference`]: struct(
    'A reference to another object.',
    {
      apiVersion: str('API version of the referent.'),
      fieldPath: str('A part of the referent, e.g. "spec.configSource", when the reference is to less than the whole object.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent; empty for cluster-scoped kinds.'),
      resourceVersion: str('The specific version of the referent, if any.'),
      uid: str('UID of the referent. Events recorded by a kubelet about its node carry the node name here.'),
    },
    undefined,
    { 'x-kubernetes-map-type': 'atomic' },
  ),

  // --- Pod (read-only, for describe node) ---------------------------------------------------------------
  [`${CORE}Pod`]: kindSchema('A group of containers scheduled onto a node. Served read-only.', core('Pod'), {
    metadata: objectMeta('pod'),
    spec: embedded(`${CORE}PodSpec`, 'Desired state of the pod.'),
    status: embedded(`${CORE}PodStatus`, 'Observed state of the pod.'),
  }),
  [`${CORE}PodList`]: listSchema(`${CORE}Pod`, core('PodList'), 'pods'),
  [`${CORE}PodSpec`]: struct('Desired state of a pod (only the fields this server keeps).', {
    containers: arrayOf(structs(`${CORE}Container`), 'The containers of the pod.', {
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    }),
    nodeName: str('The node the pod is bound to.'),
  }),
  [`${CORE}Container`]: struct('A container of a pod.', { image: str('Container image.'), name: str('Name of the container.') }, ['name']),
  [`${CORE}PodStatus`]: struct('Observed state of a pod.', {
    hostIP: str('IP of the node the pod runs on.'),
    phase: str('"Pending", "Running", "Succeeded", "Failed" or "Unknown".'),
    podIP: str('IP of the pod.'),
  }),

  // --- Lease ----------------------------------------------------------------------------------------------
  [`${COORDINATION}Lease`]: kindSchema(
    "A lease; nodes renew one each in kube-node-lease as their heartbeat.",
    coordination('Lease'),
    {
      metadata: objectMeta('lease'),
      spec: embedded(`${COORDINATION}LeaseSpec`, 'The lease holder and timing.'),
    },
  ),
  [`${COORDINATION}LeaseList`]: listSchema(`${COORDINATION}Lease`, coordination('LeaseList'), 'leases'),
  [`${COORDINATION}LeaseSpec`]: struct('Holder and timing of a lease.', {
    acquireTime: microTime('When the current holder acquired the lease.'),
    holderIdentity: str('Identity of the current holder.'),
    leaseDurationSeconds: int32('How long holders wait after renewTime before the lease may be taken over.'),
    leaseTransitions: int32('How many times the lease changed holder.'),
    renewTime: microTime('When the holder last renewed the lease.'),
  }),
};
