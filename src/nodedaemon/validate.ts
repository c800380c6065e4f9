// Whether an assigned config is one the node's kubelet will accept, judged as that kubelet reads its files: with
// `--apply-as dropin`, the node's own --config file with every drop-in of --config-dir merged over it in file-name
// order, the daemon's own drop-in among them; with `replace`, the assigned config as the --config file under the same
// drop-ins. Decode, defaults, the minor's validation and its start-up checks. Pure: the caller reads the files.

import { LoadError, ValidateError } from '../api/configstatus.js';
import { KubeletConfigError, type KubeletVersion, type Layer } from '../kubeletconfig/index.js';
import type { Validation } from './decide.js';

export interface Candidate {
  mode: 'dropin' | 'replace';
  /** The assigned payload, named for messages. */
  payload: { bytes: Uint8Array; name: string };
  /** The node's --config file (dropin mode), with its directory for relative paths. */
  base?: Layer;
  /** The directory of --config (replace mode: relative paths resolve against it). */
  configDir: string;
  /** The other drop-ins of --config-dir by file name (the daemon's own excluded), in order. */
  dropIns: readonly { fileName: string; layer: Layer }[];
  /** The daemon's drop-in file name, where the payload sorts among the others. */
  dropInName: string;
}

export function validateCandidate(kubelet: KubeletVersion, c: Candidate): Validation {
  let base: Layer;
  let dropIns: Layer[];
  if (c.mode === 'dropin') {
    base = c.base ?? { bytes: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n', name: '(defaults)', dir: c.configDir };
    const ours = { fileName: c.dropInName, layer: { bytes: c.payload.bytes, name: c.payload.name } };
    dropIns = [...c.dropIns, ours].sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0)).map((d) => d.layer);
  } else {
    base = { bytes: c.payload.bytes, name: c.payload.name, dir: c.configDir };
    dropIns = c.dropIns.map((d) => d.layer);
  }
  let config;
  try {
    config = kubelet.render(base, dropIns).config;
  } catch (err) {
    if (err instanceof KubeletConfigError) return { ok: false, reason: LoadError, detail: err.message };
    throw err;
  }
  const v = kubelet.validate(config);
  if (v.errors.length > 0) return { ok: false, reason: ValidateError, detail: v.errors.join('; ') };
  const s = kubelet.validateStartup(config);
  if (s.errors.length > 0) return { ok: false, reason: ValidateError, detail: s.errors.join('; ') };
  return { ok: true };
}
