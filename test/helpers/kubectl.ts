// Real kubectl binaries for the compatibility tests: 1.20 from Debian's kubernetes-client (unpacked into .cache/
// by scripts/test-deps.sh) and 1.32 from the versioned binaries beside the machine's kubectl dispatcher.
// Each handle gets its own discovery cache dir, because kubectl caches discovery per host:port.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from './paths.js';

export type KubectlVersion = '1.20' | '1.32';

export function kubectlPath(version: KubectlVersion): string {
  if (version === '1.20') {
    const p = process.env['DKC_KUBECTL_1_20'] ?? join(repoRoot, '.cache/kubernetes-client/usr/bin/kubectl');
    if (!existsSync(p)) throw new Error(`kubectl 1.20 not found at ${p}; run scripts/test-deps.sh`);
    return p;
  }
  const dispatcher = execFileSync('bash', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
  const p = process.env['DKC_KUBECTL_1_32'] ?? join(dirname(realpathSync(dispatcher)), 'kubectl.1.32');
  if (!existsSync(p)) throw new Error(`kubectl 1.32 not found at ${p}`);
  return p;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Kubectl {
  version: KubectlVersion;
  run(
    args: string[],
    options?: { input?: string; env?: Record<string, string>; timeoutMs?: number },
  ): Promise<KubectlResult>;
  /** Runs and fails the test with kubectl's stderr unless it exits 0. */
  ok(args: string[], options?: { input?: string; env?: Record<string, string> }): Promise<string>;
  /** Starts a long-running kubectl (watch, proxy); the caller kills it. */
  spawn(args: string[]): ReturnType<typeof spawn>;
  cleanup(): Promise<void>;
}

export async function kubectl(version: KubectlVersion, kubeconfig: string): Promise<Kubectl> {
  const bin = kubectlPath(version);
  const cacheDir = await mkdtemp(join(tmpdir(), `dkc-kubectl-${version}-`));
  const base = ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir];
  const env = (extra?: Record<string, string>) => ({
    ...process.env,
    HOME: cacheDir,
    KUBECONFIG: kubeconfig,
    ...extra,
  });
  const k: Kubectl = {
    version,
    run(args, options = {}) {
      return new Promise((resolve, reject) => {
        const p = spawn(bin, [...base, ...args], { env: env(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const timer = setTimeout(() => p.kill('SIGKILL'), options.timeoutMs ?? 60_000);
        p.on('error', reject);
        p.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code: code ?? -1, stdout, stderr });
        });
        p.stdin.end(options.input ?? '');
      });
    },
    async ok(args, options) {
      const r = await k.run(args, options);
      if (r.code !== 0)
        throw new Error(`kubectl ${version} ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    spawn(args) {
      return spawn(bin, [...base, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    },
    async cleanup() {
      await rm(cacheDir, { recursive: true, force: true });
    },
  };
  return k;
}
