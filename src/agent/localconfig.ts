// The node's own kubelet configuration as the kubelet reads it at start: defaults, then the --config file, then the
// drop-ins of --config-dir merged over it (KEP-3983), then the flags; checked before anything starts, so that a bad
// file or flag fails the start and not a config's trial.

import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  BASE_KUBELET_VERSION,
  kubeletVersion,
  LayerError,
  type ConfigSource,
  type EffectiveConfigSuccess,
  type KubeletVersion,
} from '../kubeletconfig/index.js';
import { klog } from '../util/klog.js';
import { errorMessage } from '../util/errors.js';
import { configDirMessages, readDropIns } from './configdir.js';
import type { AgentFlags } from './flags.js';
import { parseCapacityFlag } from './node/index.js';
import { AgentStartError } from './starterror.js';

async function readLocalConfig(flags: AgentFlags, kubelet: KubeletVersion): Promise<ConfigSource | undefined> {
  let file: ConfigSource | undefined;
  if (flags.config) {
    const path = resolve(flags.config);
    try {
      file = { bytes: await readFile(path), dir: dirname(path), name: flags.config };
    } catch (err) {
      throw new AgentStartError(`failed to load Kubelet config file ${flags.config}, error: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }
  if (!flags.configDir) return file;
  return mergeConfigDir(flags.configDir, file, kubelet);
}

/** --config with the drop-ins of --config-dir merged over it (KEP-3983), as one file: what the kubelet reads. */
async function mergeConfigDir(
  configDir: string,
  file: ConfigSource | undefined,
  kubelet: KubeletVersion,
): Promise<ConfigSource | undefined> {
  const dir = resolve(configDir);
  let dropIns;
  try {
    dropIns = await readDropIns(dir);
  } catch (err) {
    throw new AgentStartError(errorMessage(err), { cause: err });
  }
  if (dropIns.length === 0) return file;
  const base = file ?? {
    bytes: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n',
    dir: process.cwd(),
    name: '(defaults)',
  };
  try {
    const merged = kubelet.render(
      { bytes: base.bytes, dir: base.dir, name: base.name ?? '' },
      dropIns.map((d) => ({ bytes: d.bytes, name: d.path })),
    );
    for (const w of merged.warnings) klog.warning(`${w.source}: ${w.message}`);
    return {
      bytes: kubelet.encode(merged.config),
      dir: base.dir,
      ...(base.name !== undefined ? { name: base.name } : {}),
    };
  } catch (err) {
    if (!(err instanceof LayerError)) throw err;
    const message =
      err.source === base.name
        ? err.message
        : configDirMessages.merge(configDirMessages.walk(dir, configDirMessages.load(err.source, err.message)));
    throw new AgentStartError(message, { cause: err });
  }
}

/** The local config as the node's kubelet reads it (defaults ← --config and --config-dir ← flags), checked. */
export interface LocalConfig {
  kubelet: KubeletVersion;
  file: ConfigSource | undefined;
  local: EffectiveConfigSuccess;
  capacityFlag: ReturnType<typeof parseCapacityFlag> | undefined;
}

export async function loadLocalConfig(flags: AgentFlags): Promise<LocalConfig> {
  // The kubelet this node behaves as: its fields, defaults, validation and gates (1.22, the library's own, by default).
  const kubelet = kubeletVersion(flags.kubeletVersion ?? BASE_KUBELET_VERSION);
  const file = await readLocalConfig(flags, kubelet);
  const local = kubelet.effectiveConfig({ ...(file ? { file } : {}), flags: flags.kubelet });
  // The kubelet decodes leniently after its strict pass fails, and says so: a typo must not go unnoticed.
  for (const w of local.warnings) if (w.layer === 'file' && w.detail) klog.warning(`${file?.name ?? ''}: ${w.message}`);
  if (!local.ok) {
    throw new AgentStartError(
      `failed to validate the local kubelet configuration (${local.layer}): ${local.errors.join('; ')}`,
    );
  }
  // Flags are checked before anything starts: a bad one must fail the start, not a config's trial.
  let capacityFlag: ReturnType<typeof parseCapacityFlag> | undefined;
  try {
    capacityFlag = flags.capacity ? parseCapacityFlag(flags.capacity) : undefined;
  } catch (err) {
    throw new AgentStartError(errorMessage(err), { cause: err });
  }
  return { kubelet, file, local, capacityFlag };
}
