// Start-up cost of the KubeletConfiguration library, paid by the node agent on every restart: fresh node
// processes import the compiled library and load + validate + start-up-check a realistic kubeadm-style
// config; the in-process time runs from just before the import to just after the checks. The baselines,
// measured interleaved in the same run, are fresh processes importing an empty module the same way. Two
// variants show what the build's loader buys (docs/adr/0006-library-code-cache.md): the same single script
// without its code cache, and tsc's separate modules (index.modules.js).
//
// Other kubelet minors (`dkc config validate --kubelet-version X`): the same work through kubeletVersion(X), which
// builds X's schema and gates from its generated table on first use; 1.22 is the library's own code, the like-for-like
// baseline in the same run. The target is 20 ms for any X.
//
// Usage: node dist/bench/kubeletconfig-startup.js [runs]   (default 20)   (npm run bench:kubeletconfig)

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const runs = Number(process.argv[2] ?? 20);
const here = dirname(fileURLToPath(import.meta.url));
const libraryDir = join(here, '../src/kubeletconfig');
const library = pathToFileURL(join(libraryDir, 'index.js')).href;
const modules = pathToFileURL(join(libraryDir, 'index.modules.js')).href;

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
const WITH_ANCHOR = REALISTIC.replace(
  'kubeReserved:\n  cpu: 100m\n  memory: 256Mi\n',
  'kubeReserved: &r\n  cpu: 100m\n  memory: 256Mi\n',
).replace('systemReserved:\n  cpu: 100m\n  memory: 512Mi\n', 'systemReserved: *r\n');

interface Sample {
  /** performance.now() from before the import to after the checks. */
  wall: number;
  /** CPU time (user + system) the process spent in that interval: insensitive to other load on the machine. */
  cpu: number;
  /** How the library's code was loaded (kc.codeCache); empty for the baselines. */
  cache: string;
}

function child(script: string): Sample {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  const [wall, cpu, cache = ''] = out.trim().split(' ');
  return { wall: Number(wall), cpu: Number(cpu), cache };
}

function libraryScript(config: string, entry = library): string {
  // The agent hands the library bytes read from its checkpoint, so the payload is bytes here too.
  return `
const bytes = new TextEncoder().encode(${JSON.stringify(config)});
const c0 = process.cpuUsage();
const t0 = performance.now();
const kc = await import(${JSON.stringify(entry)});
const { config } = kc.load(bytes, { dir: '/etc/kubernetes' });
const v = kc.validate(config);
const s = kc.validateStartup(config);
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
if (v.errors.length || s.errors.length) throw new Error(v.message + s.errors.join());
process.stdout.write((t1 - t0) + ' ' + (c1.user + c1.system) / 1000 + ' ' + kc.codeCache + '/' + kc.yamlCodeCache());
`;
}

/** The realistic config without `NodeSwap: false`, which 1.34 and later refuse (the gate is GA, locked on). */
const PORTABLE = REALISTIC.replace('  NodeSwap: false\n', '');

/** The same work as a later kubelet minor: its table is turned into a schema and gates on first use. */
function versionScript(config: string, version: string): string {
  return `
const bytes = new TextEncoder().encode(${JSON.stringify(config)});
const c0 = process.cpuUsage();
const t0 = performance.now();
const kc = await import(${JSON.stringify(library)});
const kv = kc.kubeletVersion(${JSON.stringify(version)});
const { config } = kv.load(bytes, { dir: '/etc/kubernetes' });
const v = kv.validate(config);
const s = kv.validateStartup(config);
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
if (v.errors.length || s.errors.length) throw new Error(v.message + s.errors.join());
process.stdout.write((t1 - t0) + ' ' + (c1.user + c1.system) / 1000 + ' ' + kc.codeCache + '/' + kc.yamlCodeCache());
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
// The loader and its script without the code cache: V8 compiles the script as it would any other.
for (const f of readdirSync(libraryDir))
  if (f === 'index.js' || /^bundle-[0-9a-f]+\.js$/.test(f)) copyFileSync(join(libraryDir, f), join(scratch, f));
const uncached = pathToFileURL(join(scratch, 'index.js')).href;

function stats(xs: number[]): { median: number; p90: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
  return { median: at(0.5), p90: at(0.9) };
}

const variants: Array<{ label: string; script: string; samples: Sample[] }> = [
  { label: 'library, plain YAML (fast reader)', script: libraryScript(REALISTIC), samples: [] },
  { label: 'library, YAML with an anchor (yaml package)', script: libraryScript(WITH_ANCHOR), samples: [] },
  { label: 'same script without its code cache', script: libraryScript(REALISTIC, uncached), samples: [] },
  { label: "tsc's separate modules (index.modules.js)", script: libraryScript(REALISTIC, modules), samples: [] },
  { label: 'separate modules, YAML with an anchor', script: libraryScript(WITH_ANCHOR, modules), samples: [] },
  { label: 'baseline: empty in-memory import', script: BASELINE, samples: [] },
  { label: 'kubelet 1.22 through kubeletVersion', script: versionScript(PORTABLE, '1.22'), samples: [] },
  { label: 'kubelet 1.31 (its table, loaded lazily)', script: versionScript(PORTABLE, '1.31'), samples: [] },
  { label: 'kubelet 1.36 (its table, loaded lazily)', script: versionScript(PORTABLE, '1.36'), samples: [] },
  { label: 'baseline: empty module file import', script: BASELINE_FILE, samples: [] },
];
const [lib, anchor, noCache, separate] = variants.map((v) => v.samples) as [Sample[], Sample[], Sample[], Sample[]];

const load0 = loadavg()[0]!;
try {
  // One unmeasured round warms the file cache; then the variants take turns, so drift hits them alike.
  for (const v of variants) child(v.script);
  for (let i = 0; i < runs; i++) for (const v of variants) v.samples.push(child(v.script));
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
  console.log(
    `  ${label.padEnd(44)} wall median ${fmt(w.median)} p90 ${fmt(w.p90)} | cpu median ${fmt(c.median)} p90 ${fmt(c.p90)}`,
  );
  return { w, c };
};
console.log(
  `kubeletconfig start-up, ${runs} fresh processes each (import → load → validate → validateStartup); ` +
    `1-min load average ${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} on ${availableParallelism()} cores`,
);
const [l, la, nc, sep, sepa, b, v22, v31, v36, bf] = variants.map((v) => line(v.label, v.samples)) as [
  Stat,
  Stat,
  Stat,
  Stat,
  Stat,
  Stat,
  Stat,
  Stat,
  Stat,
  Stat,
];
const how = (xs: Sample[]) => [...new Set(xs.map((x) => x.cache))].join('/');
console.log(
  `  code cache (library/yaml): ${how(lib)} (library), ${how(anchor)} (anchor), ${how(noCache)} (without), ${how(separate)} (separate modules)`,
);
const ratio = (x: Stat, y: Stat) =>
  `wall ${(x.w.median / y.w.median).toFixed(2)}x, cpu ${(x.c.median / y.c.median).toFixed(2)}x`;
console.log(`  library vs without code cache: ${ratio(l, nc)}; vs separate modules: ${ratio(l, sep)}`);
console.log(`  YAML with an anchor, library vs separate modules: ${ratio(la, sepa)}`);
console.log(`  ratio vs in-memory import: ${ratio(l, b)}; vs empty file import: ${ratio(l, bf)}`);
console.log(
  `  library minus empty file import (median): wall ${fmt(l.w.median - bf.w.median)}, cpu ${fmt(l.c.median - bf.c.median)}`,
);
console.log(
  `  kubelet versions vs 1.22 (same run): 1.31 ${ratio(v31, v22)}, 1.36 ${ratio(v36, v22)}; ` +
    `wall medians 1.22 ${fmt(v22.w.median)}, 1.31 ${fmt(v31.w.median)}, 1.36 ${fmt(v36.w.median)}; ` +
    `cpu medians ${fmt(v22.c.median)}, ${fmt(v31.c.median)}, ${fmt(v36.c.median)} (target < 20 ms, ` +
    `wall ${Math.max(v31.w.median, v36.w.median) < 20 ? 'met' : 'missed'}, cpu ${Math.max(v31.c.median, v36.c.median) < 20 ? 'met' : 'missed'})`,
);
