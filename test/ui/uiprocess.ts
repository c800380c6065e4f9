// `dkc ui` as a real process for the browser tests: started on a free port, its URL read from what it prints.

import { spawn, type ChildProcess } from 'node:child_process';
import { dkcBin } from '../../src/up/cluster.js';

/** Starts `dkc ui`, hands its process to `track` at once (so a failed start is still cleaned up), resolves its URL. */
export function startUi(kubeconfig: string, track: (p: ChildProcess) => void): Promise<string> {
  const p = spawn(process.execPath, [dkcBin, 'ui', '--kubeconfig', kubeconfig, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(p);
  let out = '';
  return new Promise((resolve, reject) => {
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Serving the fleet view on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.on('exit', (code) => reject(new Error(`dkc ui exited ${code}: ${out}`)));
  });
}
