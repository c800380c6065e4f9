// deploy/node-daemon/ checked offline, since no kube-apiserver or kubelet runs here: every manifest validates against
// upstream's schema for its kind (kubernetes-models, generated from Kubernetes' OpenAPI); the DaemonSet is what the
// daemon needs on a host (privileged, host PID and network, the kubelet's files and the checkpoints from host paths,
// the restart through the host's systemd); the flags of the DaemonSet and of the systemd unit are flags
// `dkc node-daemon` accepts, with the values the docs give; each binding names the role beside it, read-only.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { DaemonSet } from 'kubernetes-models/apps/v1/DaemonSet';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { parseNodeDaemonFlags } from '../../src/nodedaemon/flags.js';
import { CONFIG_NAMESPACE } from '../../src/api/dkc/identity.js';
import { repoRoot } from '../helpers/server.js';

const DIR = join(repoRoot, 'deploy/node-daemon');
type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/DaemonSet': DaemonSet,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
};

async function docs(file: string): Promise<Doc[]> {
  return parseAllDocuments(await readFile(join(DIR, file), 'utf8')).map((d) => {
    assert.deepEqual(d.errors, [], `${file}: YAML errors`);
    return d.toJS() as Doc;
  });
}

function validate(doc: Doc): void {
  const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
  assert.ok(Model, `no schema for ${doc.apiVersion} ${doc.kind}`);
  new Model(doc as never).validate();
}

interface PodSpec {
  hostPID?: boolean;
  hostNetwork?: boolean;
  containers: {
    command: string[];
    args: string[];
    image: string;
    securityContext?: { privileged?: boolean };
    volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
  }[];
  tolerations?: unknown[];
  volumes: { name: string; hostPath?: { path: string } }[];
}

describe('deploy/node-daemon/', () => {
  it("every document validates against upstream's schema for its kind, and a broken one does not", async () => {
    const all = [...(await docs('daemonset.yaml')), ...(await docs('rbac.yaml'))];
    assert.deepEqual(
      all.map((d) => d.kind),
      ['ServiceAccount', 'DaemonSet', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'],
    );
    for (const d of all) validate(d);
    const broken = structuredClone(all[1]!) as Doc & { spec: { template: { spec: { hostPID: unknown } } } };
    broken.spec.template.spec.hostPID = 'yes';
    assert.throws(() => validate(broken), /hostPID/);
  });

  it('the DaemonSet runs privileged in the host PID and network namespaces, with the host paths the daemon uses', async () => {
    const ds = (await docs('daemonset.yaml'))[1] as Doc & { spec: { template: { spec: PodSpec } } };
    const pod = ds.spec.template.spec;
    const c = pod.containers[0]!;
    assert.deepEqual([pod.hostPID, pod.hostNetwork, c.securityContext?.privileged], [true, true, true]);
    const mountOf = (path: string) =>
      c.volumeMounts.find((v) => path === v.mountPath || path.startsWith(`${v.mountPath}/`));
    const hostPath = (path: string) => pod.volumes.find((v) => v.name === mountOf(path)?.name)?.hostPath?.path;
    const flags = parseNodeDaemonFlags(c.args.map((a) => a.replace('$(NODE_NAME)', 'node-1')));
    assert.equal(flags.nodeName, 'node-1');
    assert.equal(flags.applyAs, 'dropin');
    assert.match(flags.kubeletRestartCommand, /^nsenter --target 1 .*-- systemctl restart kubelet$/);
    assert.match(
      flags.kubeletPidCommand,
      /^nsenter --target 1 .*-- systemctl show --property MainPID --value kubelet$/,
    );
    const read = [flags.kubeconfig, flags.kubeletConfig, flags.kubeletConfigDir, flags.dynamicConfigDir];
    for (const path of [...read, ...flags.kubeletFlagsFiles]) {
      assert.ok(hostPath(path) !== undefined && path.startsWith(hostPath(path)!), `${path} comes from the host`);
    }
    assert.deepEqual(c.command, ['dkc', 'node-daemon']);
  });

  it('mounts only what the daemon uses, read-only but for its drop-in directory and its checkpoints; tolerates no taint of its own; runs an image pinned by digest', async () => {
    const ds = (await docs('daemonset.yaml'))[1] as Doc & { spec: { template: { spec: PodSpec } } };
    const pod = ds.spec.template.spec;
    const c = pod.containers[0]!;
    const hostPaths = Object.fromEntries(pod.volumes.map((v) => [v.name, v.hostPath?.path]));
    assert.deepEqual(
      c.volumeMounts.map((m) => [hostPaths[m.name], m.mountPath, m.readOnly === true]).sort(),
      [
        // The kubeconfig and the client certificate it names (kubeadm's kubelet.conf).
        ['/etc/kubernetes/kubelet.conf', '/etc/kubernetes/kubelet.conf', true],
        ['/var/lib/kubelet/pki', '/var/lib/kubelet/pki', true],
        ['/var/lib/kubelet/config.yaml', '/var/lib/kubelet/config.yaml', true],
        // kubeadm's flags file, which the policy check reads the kubelet's flags from.
        ['/var/lib/kubelet/kubeadm-flags.env', '/var/lib/kubelet/kubeadm-flags.env', true],
        ['/etc/kubernetes/kubelet.conf.d', '/etc/kubernetes/kubelet.conf.d', false],
        ['/var/lib/dkc', '/var/lib/dkc', false],
      ].sort(),
    );
    assert.ok(!pod.volumes.some((v) => v.hostPath?.path === '/etc/kubernetes'), 'not all of /etc/kubernetes');
    const flags = parseNodeDaemonFlags(c.args.map((a) => a.replace('$(NODE_NAME)', 'node-1')));
    const written = c.volumeMounts.filter((m) => m.readOnly !== true).map((m) => m.mountPath);
    assert.deepEqual(
      written.sort(),
      [flags.kubeletConfigDir, '/var/lib/dkc'].sort(),
      'writes only its drop-in and its state',
    );
    assert.equal(
      flags.applyAs,
      'dropin',
      'the --config file is mounted read-only: only the drop-in mode leaves it alone',
    );
    assert.ok(flags.dynamicConfigDir.startsWith('/var/lib/dkc/'));
    assert.deepEqual(pod.tolerations ?? [], [], 'no blanket toleration (control-plane nodes opt in)');
    assert.match(c.image, /^[^:@]+(:[^@]+)?@sha256:/, 'pinned by digest');
    assert.doesNotMatch(c.image, /:latest\b/);
  });

  it('each binding grants the role beside it to the nodes, read-only on ConfigMaps in dkc-configs and NodeConfigPolicies', async () => {
    type RBAC = Doc & {
      rules?: { resources: string[]; verbs: string[] }[];
      roleRef?: { kind: string; name: string };
      subjects?: { name: string }[];
    };
    const [role, binding, clusterRole, clusterBinding] = (await docs('rbac.yaml')) as RBAC[];
    // ConfigMaps in dkc's config namespace only, never kube-system's (kubeadm-config, coredns, kube-proxy, ...).
    assert.deepEqual([role!.metadata.namespace, binding!.metadata.namespace], [CONFIG_NAMESPACE, CONFIG_NAMESPACE]);
    for (const [r, b, resource] of [
      [role!, binding!, 'configmaps'],
      [clusterRole!, clusterBinding!, 'nodeconfigpolicies'],
    ] as const) {
      assert.deepEqual([b.roleRef?.kind, b.roleRef?.name], [r.kind, r.metadata.name]);
      assert.deepEqual(
        b.subjects?.map((s) => s.name),
        ['system:nodes'],
      );
      assert.deepEqual(
        r.rules?.map((x) => [x.resources, x.verbs]),
        [[[resource], ['get', 'list', 'watch']]],
      );
    }
  });

  it("the systemd unit's ExecStart is a dkc node-daemon command line with the documented defaults", async () => {
    const unit = await readFile(join(DIR, 'dkc-node-daemon.service'), 'utf8');
    const start = unit.indexOf('\nExecStart=') + 1;
    const lines: string[] = [];
    for (const line of unit.slice(start + 'ExecStart='.length).split('\n')) {
      lines.push(line.replace(/\\$/, '').trim());
      if (!line.endsWith('\\')) break;
    }
    const exec = lines.join(' ');
    const words = [...exec.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((m) => m[0].replace(/"/g, ''));
    assert.deepEqual(words.slice(0, 2), ['/usr/local/bin/dkc', 'node-daemon']);
    const flags = parseNodeDaemonFlags(words.slice(2), () => 'host-1');
    const defaults = parseNodeDaemonFlags([], () => 'host-1');
    assert.deepEqual(flags, defaults, 'the unit spells out the defaults');
  });
});
