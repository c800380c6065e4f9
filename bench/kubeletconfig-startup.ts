// Start-up cost of the KubeletConfiguration library, paid by the node agent on every restart: fresh node
// processes import the compiled library and load + validate + start-up-check a realistic kubeadm-style
// config; the in-process time runs from just before the import to just after the checks. The baseline,
// measured interleaved in the same run, is a fresh process importing an empty module the same way.
//
// Usage: node dist/bench/kubeletconfig-startup.js [runs]   (default 20)

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const runs = Number(process.argv[2] ?? 20);
const here = dirname(fileURLToPath(import.meta.url));
const library = pathToFileURL(join(here, '../src/kubeletconfig/index.js')).href;

const REALISTIC = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 0s
    cacheUnauthorizedTTL: 0s
cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
cpuManagerReconcilePeriod: 0s
evictionHard:
  memory.available: "200Mi"
  nodefs.available: "10%"
evictionPressureTransitionPeriod: 0s
featureGates:
  GracefulNodeShutdown: true
  NodeSwap: false
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMinimumGCAge: 0s
kubeReserved:
  cpu: 100m
  memory: 256Mi
logging: {}
maxPods: 110
memorySwap: {}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
reservedMemory:
- numaNode: 0
  limits:
    memory: 1124Mi
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 30s
shutdownGracePeriodCriticalPods: 10s
staticPodPath: /etc/kubernetes/manifests
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
systemReserved:
  cpu: 100m
  memory: 512Mi
tlsCipherSuites:
- TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
- TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
tlsMinVersion: VersionTLS12
volumeStatsAggPeriod: 0s
`;

/** A YAML anchor forces the fallback to the full YAML parser; measured to show what that path costs. */
const WITH_ANCHOR = REALISTIC.replace('kubeReserved:\n  cpu: 100m\n  memory: 256Mi\n', 'kubeReserved: &r\n  cpu: 100m\n  memory: 256Mi\n').replace(
  'systemReserved:\n  cpu: 100m\n  memory: 512Mi\n',
  'systemReserved: *r\n',
);

interface Sample {
  /** performance.now() from before the import to after the checks. */
  wall: number;
  /** CPU time (user + system) the process spent in that interval: insensitive to other load on the machine. */
  cpu: number;
}

function child(script: string): Sample {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  const [wall, cpu] = out.trim().split(' ').map(Number) as [number, number];
  return { wall, cpu };
}

function libraryScript(config: string): string {
  // The agent hands the library bytes read from its checkpoint, so the payload is bytes here too.
  return `
const bytes = new TextEncoder().encode(${JSON.stringify(config)});
const c0 = process.cpuUsage();
const t0 = performance.now();
const kc = await import(${JSON.stringify(library)});
const { config } = kc.load(bytes, { dir: '/etc/kubernetes' });
const v = kc.validate(config);
const s = kc.validateStartup(config);
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
if (v.errors.length || s.errors.length) throw new Error(v.message + s.errors.join());
process.stdout.write((t1 - t0) + ' ' + (c1.user + c1.system) / 1000);
`;
}

/** The same measurement around an empty import of `target`. */
function emptyImport(target: string): string {
  return `
const c0 = process.cpuUsage();
const t0 = performance.now();
await import(${JSON.stringify(target)});
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
process.stdout.write((t1 - t0) + ' ' + (c1.user + c1.system) / 1000);
`;
}

// Two baselines: an in-memory module (no file system, no file loader), and an empty module file — which is
// what any ESM program such as the agent already pays for loading its own entry point.
const scratch = mkdtempSync(join(tmpdir(), 'kc-bench-'));
writeFileSync(join(scratch, 'package.json'), '{"type":"module"}');
writeFileSync(join(scratch, 'empty.js'), 'export default 0;\n');
const BASELINE = emptyImport('data:text/javascript,export default 0');
const BASELINE_FILE = emptyImport(pathToFileURL(join(scratch, 'empty.js')).href);

function stats(xs: number[]): { median: number; p90: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { median: at(0.5), p90: at(0.9) };
}

// One unmeasured round warms the file cache.
child(libraryScript(REALISTIC));
child(BASELINE_FILE);

const lib: Sample[] = [];
const base: Sample[] = [];
const baseFile: Sample[] = [];
const anchor: Sample[] = [];
const load0 = loadavg()[0]!;
try {
  for (let i = 0; i < runs; i++) {
    lib.push(child(libraryScript(REALISTIC)));
    base.push(child(BASELINE));
    baseFile.push(child(BASELINE_FILE));
    anchor.push(child(libraryScript(WITH_ANCHOR)));
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const fmt = (x: number) => `${x.toFixed(1)} ms`;
interface Stat {
  w: { median: number; p90: number };
  c: { median: number; p90: number };
}
const line = (label: string, xs: Sample[]): Stat => {
  const w = stats(xs.map((x) => x.wall));
  const c = stats(xs.map((x) => x.cpu));
  console.log(`  ${label.padEnd(44)} wall median ${fmt(w.median)} p90 ${fmt(w.p90)} | cpu median ${fmt(c.median)} p90 ${fmt(c.p90)}`);
  return { w, c };
};
console.log(
  `kubeletconfig start-up, ${runs} fresh processes each (import → load → validate → validateStartup); ` +
    `1-min load average ${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} cores`,
);
const l = line('library, plain YAML (fast reader)', lib);
line('library, YAML with an anchor (yaml package)', anchor);
const b = line('baseline: empty in-memory import', base);
const bf = line('baseline: empty module file import', baseFile);
const ratio = (x: Stat, y: Stat) => `wall ${(x.w.median / y.w.median).toFixed(1)}x, cpu ${(x.c.median / y.c.median).toFixed(1)}x`;
console.log(`  ratio vs in-memory import: ${ratio(l, b)}; vs empty file import: ${ratio(l, bf)}`);
console.log(`  library minus empty file import (median): wall ${fmt(l.w.median - bf.w.median)}, cpu ${fmt(l.c.median - bf.c.median)}`);
