// The descriptions of the rest of a Pod's closure (volumes, probes, affinity, security contexts, environment
// sources, container statuses…), in the server's own words; merged field by field into schema/descriptions.ts, so an
// entry here may add fields to a type described there.

type Entries = Record<string, Record<string, string>>;

const readOnly = 'Whether the volume is mounted read-only (default false).';
const fsType = 'The filesystem type to mount, e.g. "ext4"; the kubelet\'s default when empty.';
const secretRef = 'The Secret holding the credentials, by name.';
const optional = 'Whether the pod may start when the referenced object or key does not exist.';
const items = 'The keys to project, each to a path; all keys when empty.';
const defaultMode = 'The permission bits of the created files (octal 0644 by default).';
const refName = 'The name of the referenced object.';
const term = {
  requiredDuringSchedulingIgnoredDuringExecution: 'Terms that must hold for the pod to be scheduled there.',
  preferredDuringSchedulingIgnoredDuringExecution: 'Weighted terms the scheduler prefers to satisfy.',
};

const container = {
  resizePolicy: 'Whether each resource may be resized in place, or needs a restart of the container.',
};

const volumes: Entries = {
  'io.k8s.api.core.v1.AWSElasticBlockStoreVolumeSource': {
    '': 'An AWS EBS volume (deprecated: use the CSI driver).',
    volumeID: 'The EBS volume ID.',
    fsType,
    partition: 'The partition to mount; 0 mounts the whole volume.',
    readOnly,
  },
  'io.k8s.api.core.v1.AzureDiskVolumeSource': {
    '': 'An Azure data disk (deprecated: use the CSI driver).',
    diskName: 'The name of the disk.',
    diskURI: 'The URI of the disk.',
    cachingMode: 'Host caching: "None", "ReadOnly" or "ReadWrite".',
    fsType,
    readOnly,
    kind: '"Shared", "Dedicated" or "Managed" (the default).',
  },
  'io.k8s.api.core.v1.AzureFileVolumeSource': {
    '': 'An Azure File share (deprecated: use the CSI driver).',
    secretName: 'The Secret with the storage account name and key.',
    shareName: 'The name of the share.',
    readOnly,
  },
  'io.k8s.api.core.v1.CSIVolumeSource': {
    '': 'An ephemeral volume provided by a CSI driver.',
    driver: 'The name of the CSI driver.',
    readOnly,
    fsType,
    volumeAttributes: 'Driver-specific attributes of the volume.',
    nodePublishSecretRef: 'The Secret passed to the driver when publishing the volume.',
  },
  'io.k8s.api.core.v1.CephFSVolumeSource': {
    '': 'A Ceph filesystem mount (deprecated).',
    monitors: 'The Ceph monitors.',
    path: 'The path within the filesystem to mount (default "/").',
    user: 'The RADOS user (default "admin").',
    secretFile: 'The keyring file of the user.',
    secretRef,
    readOnly,
  },
  'io.k8s.api.core.v1.CinderVolumeSource': {
    '': 'An OpenStack Cinder volume (deprecated: use the CSI driver).',
    volumeID: 'The Cinder volume ID.',
    fsType,
    readOnly,
    secretRef,
  },
  'io.k8s.api.core.v1.ClusterTrustBundleProjection': {
    '': 'Certificates of ClusterTrustBundles written into a projected volume.',
    name: 'One ClusterTrustBundle, by name.',
    signerName: 'The bundles of this signer (with labelSelector).',
    labelSelector: 'Selects the bundles of signerName to include.',
    optional,
    path: 'The file the certificates are written to.',
  },
  'io.k8s.api.core.v1.ConfigMapProjection': {
    '': "A ConfigMap's keys written into a projected volume.",
    name: refName,
    items,
    optional,
  },
  'io.k8s.api.core.v1.ConfigMapVolumeSource': {
    '': "A volume of a ConfigMap's keys as files.",
    name: refName,
    items,
    defaultMode,
    optional,
  },
  'io.k8s.api.core.v1.DownwardAPIProjection': {
    '': 'Pod fields written into a projected volume.',
    items: 'The files to write, each from a field or a resource.',
  },
  'io.k8s.api.core.v1.DownwardAPIVolumeFile': {
    '': 'One file of a downward API volume.',
    path: 'The relative path of the file.',
    fieldRef: 'The pod field written to the file.',
    resourceFieldRef: 'The container resource written to the file.',
    mode: 'The permission bits of the file.',
  },
  'io.k8s.api.core.v1.DownwardAPIVolumeSource': {
    '': "A volume of files with the pod's own fields.",
    items: 'The files to write.',
    defaultMode,
  },
  'io.k8s.api.core.v1.EmptyDirVolumeSource': {
    '': 'An empty directory that lives as long as the pod.',
    medium: '"" (the node\'s default storage) or "Memory" (a tmpfs).',
    sizeLimit: 'The most storage the directory may use.',
  },
  'io.k8s.api.core.v1.EphemeralVolumeSource': {
    '': 'A volume from a PersistentVolumeClaim made for the pod and deleted with it.',
    volumeClaimTemplate: 'The claim to create for the pod.',
  },
  'io.k8s.api.core.v1.FCVolumeSource': {
    '': 'A Fibre Channel volume.',
    targetWWNs: 'The target worldwide names.',
    lun: 'The target logical unit number.',
    fsType,
    readOnly,
    wwids: "The volume's worldwide identifiers (instead of targetWWNs and lun).",
  },
  'io.k8s.api.core.v1.FlexVolumeSource': {
    '': 'A volume of an exec-based FlexVolume driver (deprecated).',
    driver: 'The name of the driver.',
    fsType,
    secretRef,
    readOnly,
    options: 'Driver-specific options.',
  },
  'io.k8s.api.core.v1.FlockerVolumeSource': {
    '': 'A Flocker dataset (deprecated).',
    datasetName: 'The name of the dataset.',
    datasetUUID: 'The UUID of the dataset.',
  },
  'io.k8s.api.core.v1.GCEPersistentDiskVolumeSource': {
    '': 'A GCE persistent disk (deprecated: use the CSI driver).',
    pdName: 'The name of the disk.',
    fsType,
    partition: 'The partition to mount; 0 mounts the whole disk.',
    readOnly,
  },
  'io.k8s.api.core.v1.GitRepoVolumeSource': {
    '': 'A directory cloned from a git repository (deprecated).',
    repository: 'The repository URL.',
    revision: 'The commit to check out.',
    directory: 'The directory to clone into; "." clones into the volume root.',
  },
  'io.k8s.api.core.v1.GlusterfsVolumeSource': {
    '': 'A Glusterfs mount (deprecated).',
    endpoints: 'The Endpoints naming the Glusterfs servers.',
    path: 'The Glusterfs volume path.',
    readOnly,
  },
  'io.k8s.api.core.v1.HostPathVolumeSource': {
    '': 'A file or directory of the node mounted into the pod.',
    path: 'The path on the node.',
    type: 'What must be at the path: "", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice".',
  },
  'io.k8s.api.core.v1.ISCSIVolumeSource': {
    '': 'An iSCSI disk.',
    targetPortal: 'The target portal, ip[:port].',
    iqn: "The target's iSCSI qualified name.",
    lun: 'The target logical unit number.',
    iscsiInterface: 'The iSCSI interface (default "default").',
    fsType,
    readOnly,
    portals: 'Further target portals.',
    chapAuthDiscovery: 'Whether discovery uses CHAP authentication.',
    chapAuthSession: 'Whether the session uses CHAP authentication.',
    secretRef: 'The Secret with the CHAP credentials.',
    initiatorName: 'A custom initiator name.',
  },
  'io.k8s.api.core.v1.ImageVolumeSource': {
    '': 'An OCI image or artifact mounted read-only.',
    reference: 'The image reference.',
    pullPolicy: '"Always", "Never" or "IfNotPresent".',
  },
  'io.k8s.api.core.v1.KeyToPath': {
    '': 'One key written to a file.',
    key: 'The key.',
    path: 'The relative path of the file.',
    mode: 'The permission bits of the file.',
  },
  'io.k8s.api.core.v1.NFSVolumeSource': {
    '': 'An NFS export.',
    server: 'The NFS server.',
    path: 'The exported path.',
    readOnly,
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimTemplate': {
    '': 'The claim an ephemeral volume creates.',
    metadata: 'Labels and annotations copied to the claim.',
    spec: 'The spec of the claim.',
  },
  'io.k8s.api.core.v1.PersistentVolumeClaimVolumeSource': {
    '': 'A volume bound through an existing PersistentVolumeClaim.',
    claimName: "The claim, in the pod's namespace.",
    readOnly,
  },
  'io.k8s.api.core.v1.PhotonPersistentDiskVolumeSource': {
    '': 'A Photon Controller disk (deprecated).',
    pdID: 'The disk ID.',
    fsType,
  },
  'io.k8s.api.core.v1.PortworxVolumeSource': {
    '': 'A Portworx volume (deprecated: use the CSI driver).',
    volumeID: 'The volume ID.',
    fsType,
    readOnly,
  },
  'io.k8s.api.core.v1.ProjectedVolumeSource': {
    '': 'One directory combining several sources.',
    sources: 'The sources projected into the directory.',
    defaultMode,
  },
  'io.k8s.api.core.v1.QuobyteVolumeSource': {
    '': 'A Quobyte mount (deprecated).',
    registry: 'The Quobyte registry, host:port.',
    volume: 'The Quobyte volume.',
    readOnly,
    user: 'The user to map access to.',
    group: 'The group to map access to.',
    tenant: 'The tenant owning the volume.',
  },
  'io.k8s.api.core.v1.RBDVolumeSource': {
    '': 'A Rados block device (deprecated).',
    monitors: 'The Ceph monitors.',
    image: 'The RADOS image.',
    fsType,
    pool: 'The RADOS pool (default "rbd").',
    user: 'The RADOS user (default "admin").',
    keyring: 'The keyring file of the user.',
    secretRef,
    readOnly,
  },
  'io.k8s.api.core.v1.ScaleIOVolumeSource': {
    '': 'A ScaleIO volume (deprecated).',
    gateway: 'The ScaleIO API gateway.',
    system: 'The ScaleIO system.',
    secretRef,
    sslEnabled: 'Whether the gateway is reached over TLS.',
    protectionDomain: 'The protection domain.',
    storagePool: 'The storage pool.',
    storageMode: '"ThickProvisioned" or "ThinProvisioned" (the default).',
    volumeName: 'The existing volume.',
    fsType,
    readOnly,
  },
  'io.k8s.api.core.v1.SecretProjection': {
    '': "A Secret's keys written into a projected volume.",
    name: refName,
    items,
    optional,
  },
  'io.k8s.api.core.v1.SecretVolumeSource': {
    '': "A volume of a Secret's keys as files.",
    secretName: "The Secret, in the pod's namespace.",
    items,
    defaultMode,
    optional,
  },
  'io.k8s.api.core.v1.ServiceAccountTokenProjection': {
    '': "A token of the pod's service account written into a projected volume.",
    audience: "The audience the token is for (the API server's by default).",
    expirationSeconds: 'How long the token is valid (default one hour, at least ten minutes).',
    path: 'The file the token is written to.',
  },
  'io.k8s.api.core.v1.StorageOSVolumeSource': {
    '': 'A StorageOS volume (deprecated).',
    volumeName: 'The volume name.',
    volumeNamespace: "The StorageOS namespace; the pod's when empty.",
    fsType,
    readOnly,
    secretRef,
  },
  'io.k8s.api.core.v1.Volume': {
    name: "The volume's name, which volume mounts refer to; a DNS label unique in the pod.",
  },
  'io.k8s.api.core.v1.VolumeProjection': {
    '': 'One source of a projected volume.',
    secret: "A Secret's keys.",
    downwardAPI: 'Pod fields.',
    configMap: "A ConfigMap's keys.",
    serviceAccountToken: 'A service account token.',
    clusterTrustBundle: 'ClusterTrustBundle certificates.',
  },
  'io.k8s.api.core.v1.VsphereVirtualDiskVolumeSource': {
    '': 'A vSphere disk (deprecated: use the CSI driver).',
    volumePath: 'The path of the disk.',
    fsType,
    storagePolicyName: 'The storage policy, by name.',
    storagePolicyID: 'The storage policy, by ID.',
  },
};

/** VolumeSource: one field per kind of volume, exactly one set. */
const volumeSource: Entries = {
  'io.k8s.api.core.v1.VolumeSource': {
    '': 'Where a volume comes from: exactly one of its fields is set.',
    hostPath: 'A path of the node.',
    emptyDir: "An empty directory for the pod's lifetime.",
    gcePersistentDisk: 'A GCE persistent disk.',
    awsElasticBlockStore: 'An AWS EBS volume.',
    gitRepo: 'A cloned git repository.',
    secret: "A Secret's keys as files.",
    nfs: 'An NFS export.',
    iscsi: 'An iSCSI disk.',
    glusterfs: 'A Glusterfs mount.',
    persistentVolumeClaim: 'An existing PersistentVolumeClaim.',
    rbd: 'A Rados block device.',
    flexVolume: "A FlexVolume driver's volume.",
    cinder: 'An OpenStack Cinder volume.',
    cephfs: 'A Ceph filesystem.',
    flocker: 'A Flocker dataset.',
    downwardAPI: "The pod's own fields as files.",
    fc: 'A Fibre Channel volume.',
    azureFile: 'An Azure File share.',
    configMap: "A ConfigMap's keys as files.",
    vsphereVolume: 'A vSphere disk.',
    quobyte: 'A Quobyte mount.',
    azureDisk: 'An Azure data disk.',
    photonPersistentDisk: 'A Photon Controller disk.',
    projected: 'Several sources in one directory.',
    portworxVolume: 'A Portworx volume.',
    scaleIO: 'A ScaleIO volume.',
    storageos: 'A StorageOS volume.',
    csi: 'An ephemeral CSI volume.',
    ephemeral: 'A claim made for the pod and deleted with it.',
    image: 'An OCI image or artifact.',
  },
};

const env: Entries = {
  'io.k8s.api.core.v1.ConfigMapEnvSource': {
    '': 'A ConfigMap whose keys become environment variables.',
    name: refName,
    optional,
  },
  'io.k8s.api.core.v1.ConfigMapKeySelector': {
    '': 'One key of a ConfigMap.',
    name: refName,
    key: 'The key.',
    optional,
  },
  'io.k8s.api.core.v1.EnvFromSource': {
    prefix: 'A prefix added to each variable name.',
    configMapRef: 'The ConfigMap to read.',
    secretRef: 'The Secret to read.',
  },
  'io.k8s.api.core.v1.EnvVar': {
    name: "The variable's name.",
    value: 'The value; $(VAR) references to earlier variables are expanded, $$ escapes.',
    valueFrom: 'Where the value comes from, instead of value.',
  },
  'io.k8s.api.core.v1.EnvVarSource': {
    '': "Where an environment variable's value comes from: exactly one of its fields.",
    fieldRef: 'A field of the pod.',
    resourceFieldRef: 'A resource of the container.',
    configMapKeyRef: 'A key of a ConfigMap.',
    secretKeyRef: 'A key of a Secret.',
  },
  'io.k8s.api.core.v1.ObjectFieldSelector': {
    '': 'A field of the pod, by path.',
    apiVersion: 'The version the path is written in (default "v1").',
    fieldPath: 'The path of the field, e.g. "metadata.name" or "status.podIP".',
  },
  'io.k8s.api.core.v1.ResourceFieldSelector': {
    '': 'A limit or request of a container.',
    containerName: 'The container; required in volumes, the own container in env.',
    resource: 'The resource, e.g. "limits.cpu" or "requests.memory".',
    divisor: 'The unit the value is written in (default "1").',
  },
  'io.k8s.api.core.v1.SecretEnvSource': {
    '': 'A Secret whose keys become environment variables.',
    name: refName,
    optional,
  },
  'io.k8s.api.core.v1.SecretKeySelector': {
    '': 'One key of a Secret.',
    name: refName,
    key: 'The key.',
    optional,
  },
};

const probes: Entries = {
  'io.k8s.api.core.v1.ExecAction': {
    '': 'A command run in the container; exit status 0 is success.',
    command: 'The command and its arguments, run without a shell.',
  },
  'io.k8s.api.core.v1.GRPCAction': {
    '': 'A gRPC health check.',
    port: 'The port of the gRPC service.',
    service: 'The service name sent in the health check request.',
  },
  'io.k8s.api.core.v1.HTTPGetAction': {
    '': 'An HTTP GET; a status from 200 to 399 is success.',
    path: 'The path to request.',
    port: "The port, by number or by the container port's name.",
    host: 'The host to connect to (the pod IP by default).',
    scheme: '"HTTP" (the default) or "HTTPS".',
    httpHeaders: 'Headers added to the request.',
  },
  'io.k8s.api.core.v1.HTTPHeader': {
    '': 'One HTTP header.',
    name: 'The header name.',
    value: 'The header value.',
  },
  'io.k8s.api.core.v1.Lifecycle': {
    postStart: 'Run right after the container is created; a failure restarts it.',
    preStop: 'Run before the container is stopped; the grace period counts while it runs.',
  },
  'io.k8s.api.core.v1.LifecycleHandler': {
    '': 'An action of a lifecycle hook: exactly one of its fields.',
    exec: 'A command run in the container.',
    httpGet: 'An HTTP GET.',
    tcpSocket: 'A TCP connection (deprecated for hooks).',
    sleep: 'A pause.',
  },
  'io.k8s.api.core.v1.Probe': {
    initialDelaySeconds: 'Seconds after the container starts before the first probe.',
    timeoutSeconds: 'Seconds before a probe times out (default 1).',
    periodSeconds: 'Seconds between probes (default 10).',
    successThreshold: 'Consecutive successes for success after a failure (default 1).',
    failureThreshold: 'Consecutive failures for failure (default 3).',
    terminationGracePeriodSeconds: 'The grace period when a failed liveness or startup probe kills the container.',
  },
  'io.k8s.api.core.v1.ProbeHandler': {
    '': 'What a probe does: exactly one of its fields.',
    exec: 'A command run in the container.',
    httpGet: 'An HTTP GET.',
    tcpSocket: 'A TCP connection.',
    grpc: 'A gRPC health check.',
  },
  'io.k8s.api.core.v1.SleepAction': {
    '': 'A pause of a lifecycle hook.',
    seconds: 'How long to sleep.',
  },
  'io.k8s.api.core.v1.TCPSocketAction': {
    '': 'A TCP connection; connecting is success.',
    port: "The port, by number or by the container port's name.",
    host: 'The host to connect to (the pod IP by default).',
  },
};

const scheduling: Entries = {
  'io.k8s.api.core.v1.Affinity': {
    nodeAffinity: 'Rules over the labels of nodes.',
    podAffinity: 'Rules to run near pods with given labels.',
    podAntiAffinity: 'Rules to run away from pods with given labels.',
  },
  'io.k8s.api.core.v1.NodeAffinity': {
    '': 'Rules over the nodes a pod may run on.',
    ...term,
  },
  'io.k8s.api.core.v1.NodeSelector': {
    '': 'Terms over nodes, any of which may match.',
    nodeSelectorTerms: 'The terms; a node matches when one of them does.',
  },
  'io.k8s.api.core.v1.NodeSelectorRequirement': {
    '': 'One condition on a node label or field.',
    key: 'The label key or field name.',
    operator: '"In", "NotIn", "Exists", "DoesNotExist", "Gt" or "Lt".',
    values: 'The values the operator compares against.',
  },
  'io.k8s.api.core.v1.NodeSelectorTerm': {
    '': 'Conditions that must all hold on a node.',
    matchExpressions: 'Conditions on node labels.',
    matchFields: 'Conditions on node fields.',
  },
  'io.k8s.api.core.v1.PodAffinity': {
    '': 'Rules to run on the same topology as other pods.',
    ...term,
  },
  'io.k8s.api.core.v1.PodAffinityTerm': {
    '': 'Pods to run near (or away from), within a topology domain.',
    labelSelector: 'The pods this term is about.',
    namespaces: "The namespaces of those pods; the pod's own when empty.",
    topologyKey: 'The node label whose value defines the domain, e.g. "kubernetes.io/hostname".',
    namespaceSelector: 'Selects the namespaces of those pods, with namespaces.',
    matchLabelKeys: 'Label keys of the incoming pod whose values are added to labelSelector.',
    mismatchLabelKeys: 'Label keys of the incoming pod whose values are excluded from labelSelector.',
  },
  'io.k8s.api.core.v1.PodAntiAffinity': {
    '': 'Rules to run on another topology than other pods.',
    ...term,
  },
  'io.k8s.api.core.v1.PreferredSchedulingTerm': {
    '': 'A node term with a weight.',
    weight: 'The weight, 1 to 100.',
    preference: 'The term.',
  },
  'io.k8s.api.core.v1.TopologySpreadConstraint': {
    maxSkew: 'The most the matching pods may differ in number between two domains.',
    topologyKey: 'The node label whose value defines a domain.',
    whenUnsatisfiable: '"DoNotSchedule" or "ScheduleAnyway".',
    labelSelector: 'The pods counted in each domain.',
    minDomains: 'The least number of eligible domains.',
    nodeAffinityPolicy: 'Whether the pod\'s node affinity limits the domains: "Honor" or "Ignore".',
    nodeTaintsPolicy: 'Whether node taints limit the domains: "Honor" or "Ignore".',
    matchLabelKeys: 'Label keys of the incoming pod whose values are added to labelSelector.',
  },
  'io.k8s.api.core.v1.WeightedPodAffinityTerm': {
    '': 'A pod term with a weight.',
    weight: 'The weight, 1 to 100.',
    podAffinityTerm: 'The term.',
  },
};

const seLinux = 'The SELinux context applied to the containers.';
const windows = 'Windows-specific options.';
const runAs = {
  runAsUser: 'The UID the process runs as.',
  runAsGroup: 'The GID the process runs as.',
  runAsNonRoot: 'Whether the kubelet refuses to start a container running as UID 0.',
  seccompProfile: 'The seccomp profile.',
  appArmorProfile: 'The AppArmor profile.',
};

const security: Entries = {
  'io.k8s.api.core.v1.AppArmorProfile': {
    '': 'An AppArmor profile.',
    type: '"RuntimeDefault", "Localhost" or "Unconfined".',
    localhostProfile: 'The profile loaded on the node, with type "Localhost".',
  },
  'io.k8s.api.core.v1.Capabilities': {
    '': 'POSIX capabilities added to or dropped from a container.',
    add: 'The capabilities added.',
    drop: 'The capabilities dropped.',
  },
  'io.k8s.api.core.v1.PodSecurityContext': {
    seLinuxOptions: seLinux,
    windowsOptions: windows,
    ...runAs,
    supplementalGroups: "Groups added to each container's first process.",
    supplementalGroupsPolicy: '"Merge" (with the image\'s groups) or "Strict".',
    fsGroup: "A group owning the pod's volumes, added to each container's processes.",
    sysctls: 'Namespaced sysctls set for the pod.',
    fsGroupChangePolicy: '"OnRootMismatch" or "Always": when volume ownership is changed.',
    seLinuxChangePolicy: 'How the SELinux label is applied to volumes: "MountOption" or "Recursive".',
  },
  'io.k8s.api.core.v1.SELinuxOptions': {
    '': 'An SELinux label.',
    user: 'The SELinux user.',
    role: 'The SELinux role.',
    type: 'The SELinux type.',
    level: 'The SELinux level.',
  },
  'io.k8s.api.core.v1.SeccompProfile': {
    '': 'A seccomp profile.',
    type: '"RuntimeDefault", "Localhost" or "Unconfined".',
    localhostProfile: 'The profile file on the node, with type "Localhost".',
  },
  'io.k8s.api.core.v1.SecurityContext': {
    capabilities: 'Capabilities added or dropped.',
    privileged: 'Whether the container runs privileged.',
    seLinuxOptions: seLinux,
    windowsOptions: windows,
    ...runAs,
    readOnlyRootFilesystem: 'Whether the root filesystem is read-only.',
    allowPrivilegeEscalation: 'Whether a process may gain more privileges than its parent.',
    procMount: '"Default" or "Unmasked" /proc.',
  },
  'io.k8s.api.core.v1.Sysctl': {
    '': 'A kernel parameter.',
    name: 'The parameter.',
    value: 'Its value.',
  },
  'io.k8s.api.core.v1.WindowsSecurityContextOptions': {
    '': 'Windows security options.',
    gmsaCredentialSpecName: 'The GMSA credential spec resource, by name.',
    gmsaCredentialSpec: 'The GMSA credential spec itself.',
    runAsUserName: 'The user the process runs as.',
    hostProcess: 'Whether the container runs as a host process.',
  },
};

const podStatus: Entries = {
  'io.k8s.api.core.v1.ContainerState': {
    '': 'The state of a container: exactly one of its fields.',
    waiting: 'Not running yet.',
    running: 'Running.',
    terminated: 'Ended.',
  },
  'io.k8s.api.core.v1.ContainerStateRunning': {
    '': 'A running container.',
    startedAt: 'When the container last started.',
  },
  'io.k8s.api.core.v1.ContainerStateTerminated': {
    '': 'An ended container.',
    exitCode: 'Its exit status.',
    signal: 'The signal that ended it.',
    reason: 'Why it ended, in a word.',
    message: 'Why it ended.',
    startedAt: 'When it started.',
    finishedAt: 'When it ended.',
    containerID: 'The runtime\'s ID of the container, "<type>://<id>".',
  },
  'io.k8s.api.core.v1.ContainerStateWaiting': {
    '': 'A container not running yet.',
    reason: 'Why it waits, in a word (e.g. "ContainerCreating").',
    message: 'Why it waits.',
  },
  'io.k8s.api.core.v1.ContainerStatus': {
    name: "The container's name.",
    state: 'Its current state.',
    lastState: 'Its state before the last restart.',
    ready: 'Whether it passes its readiness probe.',
    restartCount: 'How often it was restarted.',
    image: 'The image it runs.',
    imageID: "The image's ID.",
    containerID: 'The runtime\'s ID, "<type>://<id>".',
    started: 'Whether it passed its startup probe.',
    allocatedResources: 'The resources the node allocated to it.',
    resources: 'The resources it runs with.',
    volumeMounts: 'The volumes it mounts.',
    user: 'The identity its first process runs as.',
    allocatedResourcesStatus: 'The health of the resources allocated to it.',
  },
  'io.k8s.api.core.v1.ContainerUser': {
    '': "The identity of a container's first process.",
    linux: 'On Linux: its UID, GID and groups.',
  },
  'io.k8s.api.core.v1.LinuxContainerUser': {
    '': 'A Linux process identity.',
    uid: 'The user ID.',
    gid: 'The primary group ID.',
    supplementalGroups: 'The supplementary group IDs.',
  },
  'io.k8s.api.core.v1.PodCondition': {
    type: 'The kind of condition, e.g. "Ready" or "PodScheduled".',
    status: '"True", "False" or "Unknown".',
    lastProbeTime: 'When the condition was last checked.',
    lastTransitionTime: 'When the condition last changed status.',
    reason: 'Why it last changed, in a word.',
    message: 'Why it last changed.',
  },
  'io.k8s.api.core.v1.PodResourceClaimStatus': {
    '': "The ResourceClaim made for one of the pod's claims.",
    name: "The pod's claim.",
    resourceClaimName: 'The ResourceClaim made for it.',
  },
  'io.k8s.api.core.v1.ResourceHealth': {
    '': 'The health of one allocated device.',
    resourceID: 'The device.',
    health: '"Healthy", "Unhealthy" or "Unknown".',
  },
  'io.k8s.api.core.v1.ResourceStatus': {
    '': 'The health of the devices of one resource.',
    name: 'The resource.',
    resources: "Each device's health.",
  },
  'io.k8s.api.core.v1.VolumeMountStatus': {
    '': 'A volume as a container mounts it.',
    name: 'The volume.',
    mountPath: 'Where it is mounted.',
    readOnly: 'Whether it is mounted read-only.',
    recursiveReadOnly: 'Whether read-only applies to its submounts.',
  },
};

const podSpec: Entries = {
  'io.k8s.api.core.v1.ContainerPort': {
    name: 'A name for the port, which services may refer to.',
    hostPort: 'The node port forwarded to it.',
    containerPort: "The port number in the pod's IP.",
    protocol: '"TCP" (the default), "UDP" or "SCTP".',
    hostIP: 'The node IP the host port binds to.',
  },
  'io.k8s.api.core.v1.ContainerResizePolicy': {
    '': 'How one resource of a container is resized.',
    resourceName: 'The resource, "cpu" or "memory".',
    restartPolicy: '"NotRequired" (the default) or "RestartContainer".',
  },
  'io.k8s.api.core.v1.HostAlias': {
    ip: 'The IP address.',
    hostnames: 'The host names for it in /etc/hosts.',
  },
  'io.k8s.api.core.v1.HostIP': {
    ip: 'The IP address of the node.',
  },
  'io.k8s.api.core.v1.LocalObjectReference': {
    name: refName,
  },
  'io.k8s.api.core.v1.PodDNSConfig': {
    '': 'DNS settings of a pod, merged with those of its dnsPolicy.',
    nameservers: "Name servers added to the pod's resolv.conf.",
    searches: "Search domains added to the pod's resolv.conf.",
    options: "Resolver options added to the pod's resolv.conf.",
  },
  'io.k8s.api.core.v1.PodDNSConfigOption': {
    '': 'A resolver option.',
    name: 'The option.',
    value: 'Its value.',
  },
  'io.k8s.api.core.v1.PodIP': {
    ip: 'The IP address of the pod.',
  },
  'io.k8s.api.core.v1.PodOS': {
    '': 'The operating system a pod needs.',
    name: '"linux" or "windows".',
  },
  'io.k8s.api.core.v1.PodReadinessGate': {
    conditionType: 'The pod condition that must be True for the pod to be ready.',
  },
  'io.k8s.api.core.v1.PodResourceClaim': {
    name: "The claim's name within the pod.",
    resourceClaimName: 'An existing ResourceClaim.',
    resourceClaimTemplateName: 'A ResourceClaimTemplate a claim is made from for the pod.',
  },
  'io.k8s.api.core.v1.PodSchedulingGate': {
    name: 'The gate; the pod is not scheduled while it has any.',
  },
  'io.k8s.api.core.v1.PodSpec': {
    shareProcessNamespace: 'Whether the containers share one process namespace.',
    dnsConfig: 'DNS settings added to those of dnsPolicy.',
    setHostnameAsFQDN: "Whether the hostname is the pod's fully qualified domain name.",
    os: 'The operating system the pod needs.',
    hostUsers: "Whether the pod uses the host's user namespace (default true).",
    resources: 'Resources for the whole pod, shared by its containers.',
  },
  'io.k8s.api.core.v1.PodStatus': {
    resize: "The state of an in-place resize of the pod's resources.",
    resourceClaimStatuses: "The ResourceClaims made for the pod's claims.",
  },
  'io.k8s.api.core.v1.ResourceClaim': {
    '': 'A claim of the pod a container uses.',
    name: "The pod's claim.",
    request: 'One request of the claim; all when empty.',
  },
  'io.k8s.api.core.v1.ResourceRequirements': {
    claims: "The pod's resource claims the container uses.",
  },
  'io.k8s.api.core.v1.VolumeDevice': {
    name: 'The volume (a block-mode claim).',
    devicePath: 'The path of the device in the container.',
  },
  'io.k8s.api.core.v1.VolumeMount': {
    name: 'The volume.',
    readOnly: 'Whether it is mounted read-only.',
    recursiveReadOnly: 'Whether read-only applies to its submounts: "Disabled", "IfPossible" or "Enabled".',
    mountPath: 'Where it is mounted in the container.',
    subPath: 'A path within the volume to mount instead of its root.',
    mountPropagation: '"None", "HostToContainer" or "Bidirectional".',
    subPathExpr: 'Like subPath, with $(VAR) expanded from the environment.',
  },
};

export const podDescriptions: Readonly<Entries> = {
  ...volumes,
  ...volumeSource,
  ...env,
  ...probes,
  ...scheduling,
  ...security,
  ...podStatus,
  ...podSpec,
  'io.k8s.api.core.v1.Container': container,
};

/** The fields of a type without its own description. */
function fieldsOf(entries: Readonly<Entries>, type: string): Record<string, string> {
  const { '': _, ...fields } = entries[type] ?? {};
  return fields;
}

const CORE = 'io.k8s.api.core.v1.';

/**
 * The types whose JSON holds an embedded struct's fields (`json:",inline"`): a Volume its VolumeSource's, a Probe its
 * ProbeHandler's, an ephemeral container a container's.
 */
export function embeddedDescriptions(base: Readonly<Entries>): Entries {
  const containerFields = { ...fieldsOf(base, `${CORE}Container`), ...container };
  return {
    [`${CORE}Volume`]: fieldsOf(base, `${CORE}VolumeSource`),
    [`${CORE}Probe`]: fieldsOf(base, `${CORE}ProbeHandler`),
    [`${CORE}EphemeralContainerCommon`]: {
      ...containerFields,
      '': 'The fields an ephemeral container shares with a container.',
    },
    [`${CORE}EphemeralContainer`]: {
      ...containerFields,
      '': 'A container added to a running pod for debugging; it is not restarted and has no ports or probes that act.',
      targetContainerName: 'The container whose namespaces (process, IPC) it joins.',
    },
  };
}
