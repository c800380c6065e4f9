// The descriptions of the apps/v1 workload kinds, autoscaling/v1 Scale and the core/v1 types only they reach (Pod
// templates, PersistentVolumeClaim templates), in the server's own words; merged into schema/descriptions.ts.

const objectMeta = 'Standard object metadata.';
const listMeta = 'Standard list metadata.';
const conditionFields = {
  status: 'Whether the condition holds: "True", "False" or "Unknown".',
  lastTransitionTime: 'When the condition last changed status.',
  reason: 'A one-word, CamelCase reason for the last transition.',
  message: 'A human-readable account of the last transition.',
};
const templateField = 'The Pod template each Pod is made from; its labels must match the selector.';
const selectorField =
  "The label query over Pods this object manages; it must match the template's labels and may not change on apps/v1.";
const minReadyField =
  'Seconds a new Pod must be ready, with no container crashing, before it counts as available (0: at once).';
const historyField = 'How many old revisions to keep for rollback (default 10).';
const collisionField = 'Counts hash collisions of the template; used to name the next revision uniquely.';

const apps: Record<string, Record<string, string>> = {
  'io.k8s.api.apps.v1.ControllerRevision': {
    '': 'An immutable snapshot of state a DaemonSet or StatefulSet rolls out; its owner keeps a bounded history of them.',
    metadata: objectMeta,
    data: "The serialized state of this revision (the owner's template patch).",
    revision: "The revision number: the order of this snapshot among its owner's revisions.",
  },
  'io.k8s.api.apps.v1.ControllerRevisionList': {
    '': 'A list of ControllerRevisions.',
    metadata: listMeta,
    items: 'The ControllerRevisions.',
  },
  'io.k8s.api.apps.v1.DaemonSet': {
    '': 'Runs one copy of a Pod on every node (or every node its template selects).',
    metadata: objectMeta,
    spec: 'The desired behaviour of the daemon set.',
    status: 'The most recently observed state of the daemon set; written by its controller.',
  },
  'io.k8s.api.apps.v1.DaemonSetCondition': {
    '': "One observed aspect of a daemon set's state.",
    type: 'The kind of condition.',
    ...conditionFields,
  },
  'io.k8s.api.apps.v1.DaemonSetList': {
    '': 'A list of DaemonSets.',
    metadata: listMeta,
    items: 'The DaemonSets.',
  },
  'io.k8s.api.apps.v1.DaemonSetSpec': {
    '': 'The desired state of a DaemonSet.',
    selector: selectorField,
    template: `${templateField} Each node eligible for it runs exactly one such Pod.`,
    updateStrategy: 'How existing daemon Pods are replaced when the template changes.',
    minReadySeconds: minReadyField,
    revisionHistoryLimit: historyField,
  },
  'io.k8s.api.apps.v1.DaemonSetStatus': {
    '': 'The observed state of a DaemonSet.',
    currentNumberScheduled: 'Nodes that run at least one daemon Pod and should.',
    numberMisscheduled: 'Nodes that run a daemon Pod but should not.',
    desiredNumberScheduled: 'Nodes that should run the daemon Pod, including those that already do.',
    numberReady: 'Nodes that should run the daemon Pod and have one or more of them ready.',
    observedGeneration: 'The generation of the spec the controller last acted on.',
    updatedNumberScheduled: 'Nodes that run a daemon Pod of the current template.',
    numberAvailable: 'Nodes that should run the daemon Pod and have one available (ready for minReadySeconds).',
    numberUnavailable: 'Nodes that should run the daemon Pod and have none available.',
    collisionCount: collisionField,
    conditions: "The latest observations of the daemon set's state.",
  },
  'io.k8s.api.apps.v1.DaemonSetUpdateStrategy': {
    '': 'How a DaemonSet replaces its Pods after a template change.',
    type: '"RollingUpdate" (the default: replace Pods a few nodes at a time) or "OnDelete" (only when a Pod is deleted).',
    rollingUpdate: 'The bounds of a rolling update; only with type "RollingUpdate".',
  },
  'io.k8s.api.apps.v1.Deployment': {
    '': 'Declarative updates of a set of identical Pods through ReplicaSets.',
    metadata: objectMeta,
    spec: 'The desired behaviour of the Deployment.',
    status: 'The most recently observed state of the Deployment; written by its controller.',
  },
  'io.k8s.api.apps.v1.DeploymentCondition': {
    '': "One observed aspect of a Deployment's state (Available, Progressing, ReplicaFailure).",
    type: 'The kind of condition.',
    lastUpdateTime: 'When the condition was last written.',
    ...conditionFields,
  },
  'io.k8s.api.apps.v1.DeploymentList': {
    '': 'A list of Deployments.',
    metadata: listMeta,
    items: 'The Deployments.',
  },
  'io.k8s.api.apps.v1.DeploymentSpec': {
    '': 'The desired state of a Deployment.',
    replicas: 'How many Pods should run (default 1); null leaves the count to whoever scales it.',
    selector: `${selectorField} Its ReplicaSets are found by it too.`,
    template: templateField,
    strategy: 'How old Pods are replaced by new ones when the template changes.',
    minReadySeconds: minReadyField,
    revisionHistoryLimit: 'How many old ReplicaSets to keep for rollback (default 10).',
    paused: 'Whether the Deployment is paused: template changes are not rolled out while it is.',
    progressDeadlineSeconds:
      'Seconds a rollout may go without progress before the Deployment reports ProgressDeadlineExceeded (default 600).',
  },
  'io.k8s.api.apps.v1.DeploymentStatus': {
    '': 'The observed state of a Deployment.',
    observedGeneration: 'The generation of the spec the controller last acted on.',
    replicas: 'Non-terminated Pods of this Deployment (old and new template).',
    updatedReplicas: 'Non-terminated Pods of the current template.',
    readyReplicas: 'Pods of this Deployment with a Ready condition.',
    availableReplicas: 'Pods of this Deployment available for at least minReadySeconds.',
    unavailableReplicas: 'Pods still needed for the Deployment to be fully available.',
    conditions: "The latest observations of the Deployment's state.",
    collisionCount: collisionField,
  },
  'io.k8s.api.apps.v1.DeploymentStrategy': {
    '': 'How a Deployment replaces existing Pods with new ones.',
    type: '"RollingUpdate" (the default: replace Pods gradually) or "Recreate" (stop all old Pods first).',
    rollingUpdate: 'The bounds of a rolling update; only with type "RollingUpdate".',
  },
  'io.k8s.api.apps.v1.ReplicaSet': {
    '': 'Keeps a given number of Pods matching its selector running.',
    metadata: objectMeta,
    spec: 'The desired behaviour of the ReplicaSet.',
    status: 'The most recently observed state of the ReplicaSet; written by its controller.',
  },
  'io.k8s.api.apps.v1.ReplicaSetCondition': {
    '': "One observed aspect of a ReplicaSet's state.",
    type: 'The kind of condition.',
    ...conditionFields,
  },
  'io.k8s.api.apps.v1.ReplicaSetList': {
    '': 'A list of ReplicaSets.',
    metadata: listMeta,
    items: 'The ReplicaSets.',
  },
  'io.k8s.api.apps.v1.ReplicaSetSpec': {
    '': 'The desired state of a ReplicaSet.',
    replicas: 'How many Pods should run (default 1).',
    minReadySeconds: minReadyField,
    selector: selectorField,
    template: `${templateField} New Pods are made from it when too few run.`,
  },
  'io.k8s.api.apps.v1.ReplicaSetStatus': {
    '': 'The observed state of a ReplicaSet.',
    replicas: 'Pods the ReplicaSet counts as its own, most recently observed.',
    fullyLabeledReplicas: "Pods whose labels match the template's labels.",
    readyReplicas: 'Pods with a Ready condition.',
    availableReplicas: 'Pods available for at least minReadySeconds.',
    observedGeneration: 'The generation of the spec the controller last acted on.',
    conditions: "The latest observations of the ReplicaSet's state.",
  },
  'io.k8s.api.apps.v1.RollingUpdateDaemonSet': {
    '': "The bounds of a DaemonSet's rolling update.",
    maxUnavailable:
      'Nodes whose daemon Pod may be unavailable during the update: a number or a percentage of the desired nodes (default 1).',
    maxSurge:
      'Nodes that may run an old and a new daemon Pod at once during the update: a number or a percentage (default 0).',
  },
  'io.k8s.api.apps.v1.RollingUpdateDeployment': {
    '': "The bounds of a Deployment's rolling update.",
    maxUnavailable:
      'Pods that may be unavailable during the update: a number or a percentage of the desired replicas, rounded down (default 25%).',
    maxSurge:
      'Pods that may run above the desired replicas during the update: a number or a percentage, rounded up (default 25%).',
  },
  'io.k8s.api.apps.v1.RollingUpdateStatefulSetStrategy': {
    '': "The bounds of a StatefulSet's rolling update.",
    partition: 'Pods with an ordinal at or above this one are updated; those below keep their revision (default 0).',
    maxUnavailable: 'Pods that may be unavailable during the update: a number or a percentage (default 1).',
  },
  'io.k8s.api.apps.v1.StatefulSet': {
    '': 'Runs Pods with stable names, ordinals and storage, created and replaced in order.',
    metadata: objectMeta,
    spec: 'The desired behaviour of the stateful set.',
    status: 'The most recently observed state of the stateful set; written by its controller.',
  },
  'io.k8s.api.apps.v1.StatefulSetCondition': {
    '': "One observed aspect of a stateful set's state.",
    type: 'The kind of condition.',
    ...conditionFields,
  },
  'io.k8s.api.apps.v1.StatefulSetList': {
    '': 'A list of StatefulSets.',
    metadata: listMeta,
    items: 'The StatefulSets.',
  },
  'io.k8s.api.apps.v1.StatefulSetOrdinals': {
    '': "The numbering of a stateful set's Pods.",
    start: 'The ordinal of the first Pod (default 0); Pods are numbered from it up to start + replicas - 1.',
  },
  'io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy': {
    '': 'What becomes of the claims made from volumeClaimTemplates.',
    whenDeleted: 'On deleting the stateful set: "Retain" (the default) keeps the claims, "Delete" removes them.',
    whenScaled: 'On scaling down: "Retain" (the default) keeps the claims of removed Pods, "Delete" removes them.',
  },
  'io.k8s.api.apps.v1.StatefulSetSpec': {
    '': 'The desired state of a StatefulSet.',
    replicas: 'How many Pods should run (default 1).',
    selector: selectorField,
    template: `${templateField} Each Pod is named after the set and its ordinal.`,
    volumeClaimTemplates: "Claims made for each Pod, bound to it by name; a Pod's volume of the same name uses them.",
    serviceName: 'The Service giving the Pods their network identity (pod.service.namespace).',
    podManagementPolicy:
      '"OrderedReady" (the default: one Pod at a time, in order) or "Parallel" (all at once) when scaling.',
    updateStrategy: 'How Pods are replaced when the template changes.',
    revisionHistoryLimit: historyField,
    minReadySeconds: minReadyField,
    persistentVolumeClaimRetentionPolicy: 'Whether claims made from volumeClaimTemplates outlive their Pods.',
    ordinals: 'How the Pods are numbered.',
  },
  'io.k8s.api.apps.v1.StatefulSetStatus': {
    '': 'The observed state of a StatefulSet.',
    observedGeneration: 'The generation of the spec the controller last acted on.',
    replicas: 'Pods the controller created.',
    readyReplicas: 'Pods with a Ready condition.',
    currentReplicas: 'Pods made from the currentRevision.',
    updatedReplicas: 'Pods made from the updateRevision.',
    currentRevision: 'The revision of the Pods below the partition (ordinals [0, currentReplicas)).',
    updateRevision: 'The revision Pods are being updated to.',
    collisionCount: collisionField,
    conditions: "The latest observations of the stateful set's state.",
    availableReplicas: 'Pods available for at least minReadySeconds.',
  },
  'io.k8s.api.apps.v1.StatefulSetUpdateStrategy': {
    '': 'How a StatefulSet replaces its Pods after a template change.',
    type: '"RollingUpdate" (the default: in reverse ordinal order) or "OnDelete" (only when a Pod is deleted).',
    rollingUpdate: 'The bounds of a rolling update; only with type "RollingUpdate".',
  },
};

const autoscaling: Record<string, Record<string, string>> = {
  'io.k8s.api.autoscaling.v1.Scale': {
    '': 'The replica count of a scalable resource, read and written through its scale subresource.',
    metadata: 'The metadata of the scaled object.',
    spec: 'The desired replica count.',
    status: 'The current replica count and the selector of its Pods; read-only.',
  },
  'io.k8s.api.autoscaling.v1.ScaleSpec': {
    '': 'The desired state of a scale.',
    replicas: 'How many replicas the scaled object should have.',
  },
  'io.k8s.api.autoscaling.v1.ScaleStatus': {
    '': 'The observed state of a scale.',
    replicas: 'How many replicas the scaled object has.',
    selector: 'The label selector of the replicas, in its string form (e.g. "app=web").',
  },
};

const claimFields = {
  accessModes: 'How the volume may be mounted: "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod".',
};

const core: Record<string, Record<string, string>> = {
  'io.k8s.api.core.v1.ModifyVolumeStatus': {
    '': "The progress of changing a claim's volume attributes class.",
    targetVolumeAttributesClassName: 'The class the volume is being changed to.',
    status: 'The state of the change: "Pending", "InProgress" or "Infeasible".',
  },
  'io.k8s.api.core.v1.PersistentVolumeClaim': {
    '': 'A request for storage, bound to a PersistentVolume that satisfies it.',
    metadata: objectMeta,
    spec: 'The storage requested.',
    status: 'The observed state of the claim.',
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimCondition': {
    '': "One observed aspect of a claim's state (e.g. a resize in progress).",
    type: 'The kind of condition.',
    lastProbeTime: 'When the condition was last checked.',
    ...conditionFields,
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimSpec': {
    '': 'The storage a claim requests.',
    ...claimFields,
    selector: 'A label query over the volumes that may be bound.',
    resources: 'The least storage the volume must offer, and limits.',
    volumeName: 'The PersistentVolume to bind to, by name.',
    storageClassName: 'The StorageClass the volume comes from.',
    volumeMode: '"Filesystem" (the default) or "Block".',
    dataSource: 'An object the new volume is filled from (a snapshot or another claim), in the same namespace.',
    dataSourceRef: 'An object the new volume is filled from, possibly in another namespace or of a custom kind.',
    volumeAttributesClassName: 'The VolumeAttributesClass the volume is given.',
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimStatus': {
    '': 'The observed state of a claim.',
    phase: '"Pending", "Bound" or "Lost".',
    ...claimFields,
    capacity: 'The storage the bound volume offers.',
    conditions: "The latest observations of the claim's state.",
    allocatedResources: 'The storage allocated to the claim, which may exceed the request while a resize runs.',
    allocatedResourceStatuses: 'The state of each resize of the claim, by resource.',
    currentVolumeAttributesClassName: 'The VolumeAttributesClass the volume has now.',
    modifyVolumeStatus: 'The progress of a change of the volume attributes class, while one runs.',
  },
  'io.k8s.api.core.v1.PodTemplateSpec': {
    '': 'What a controller makes each of its Pods from: metadata and a Pod spec.',
    metadata: 'The metadata each Pod starts with; its labels are what the selector matches.',
    spec: 'The spec each Pod is given.',
  },
  'io.k8s.api.core.v1.TypedLocalObjectReference': {
    '': 'A reference to an object of a given kind in the same namespace.',
    apiGroup: 'The API group of the kind; empty for the core group.',
    kind: 'The kind of the object.',
    name: 'The name of the object.',
  },
  'io.k8s.api.core.v1.TypedObjectReference': {
    '': 'A reference to an object of a given kind, possibly in another namespace.',
    apiGroup: 'The API group of the kind; empty for the core group.',
    kind: 'The kind of the object.',
    name: 'The name of the object.',
    namespace: "The namespace of the object; the referrer's when empty.",
  },
  'io.k8s.api.core.v1.VolumeResourceRequirements': {
    '': 'The storage a claim requests and may use.',
    limits: 'The most storage the volume may use.',
    requests: 'The least storage the volume must offer.',
  },
};

const runtime: Record<string, Record<string, string>> = {
  'io.k8s.apimachinery.pkg.runtime.RawExtension': {
    '': 'An object of any kind embedded as it is, e.g. the state a ControllerRevision holds.',
  },
};

export const appsDescriptions: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  ...apps,
  ...autoscaling,
  ...core,
  ...runtime,
};
