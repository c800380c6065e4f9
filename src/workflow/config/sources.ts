// Where a config comes from: a file (or, for drop-ins, a directory read as the kubelet reads --config-dir), a key of
// a ConfigMap (`cm/NS/NAME[:KEY]`), or what a node runs (`node/NAME`: its /configz through the API's node proxy,
// with the config flags its Node records, which hold their fields whatever is assigned). Parsing a source is pure;
// reading one is the I/O edge, with the API client made only when a source needs it.

import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { isApiError, type RestClient } from '../../client/index.js';
import { API_VERSION, DROPIN_EXTENSION, KIND, type KubeletVersion, type Layer } from '../../kubeletconfig/index.js';
import { nodeKubeletVersion } from '../../nodepolicy/kubelet.js';
import type { ConfigMap, Node } from '../../api/types.js';
import { readConfigFlags, type NodeConfigFlags } from '../../nodepolicy/flags.js';
import { configMapKeys, getConfigMap } from '../kubectl.js';
import { ConfigCommandError, messages } from './errors.js';
import { errorMessage } from '../../util/errors.js';

export type SourceRef =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'configmap'; readonly namespace: string; readonly name: string; readonly key?: string }
  | { readonly kind: 'node'; readonly name: string };

/** The key a ConfigMap source uses when none is named, as `dkc rollout` and upstream's examples do. */
export const DEFAULT_KEY = 'kubelet';

const CM_PREFIXES = ['cm/', 'configmap/', 'configmaps/'];
const NODE_PREFIXES = ['node/', 'nodes/', 'no/'];

/** `cm/NS/NAME[:KEY]`, `node/NAME`, else a file path (write `./cm/…` for a file under a directory named cm). */
export function parseSource(s: string): SourceRef {
  const cm = CM_PREFIXES.find((p) => s.startsWith(p));
  if (cm) {
    const rest = s.slice(cm.length);
    const colon = rest.indexOf(':');
    const [nsName, key] = colon < 0 ? [rest, undefined] : [rest.slice(0, colon), rest.slice(colon + 1)];
    const parts = nsName.split('/');
    if (parts.length !== 2 || parts.some((p) => p === '') || key === '')
      throw new ConfigCommandError('DKC_CONFIG_INVALID_SOURCE', messages.invalidSource(s));
    return key === undefined
      ? { kind: 'configmap', namespace: parts[0]!, name: parts[1]! }
      : { kind: 'configmap', namespace: parts[0]!, name: parts[1]!, key };
  }
  const node = NODE_PREFIXES.find((p) => s.startsWith(p));
  if (node) {
    const name = s.slice(node.length);
    if (name === '' || name.includes('/'))
      throw new ConfigCommandError('DKC_CONFIG_INVALID_SOURCE', messages.invalidSource(s));
    return { kind: 'node', name };
  }
  if (s === '') throw new ConfigCommandError('DKC_CONFIG_INVALID_SOURCE', messages.invalidSource(s));
  return { kind: 'file', path: s };
}

/** How a source is named in messages. */
export function sourceName(ref: SourceRef, key?: string): string {
  switch (ref.kind) {
    case 'file':
      return ref.path;
    case 'configmap':
      return `cm/${ref.namespace}/${ref.name}:${key ?? ref.key ?? DEFAULT_KEY}`;
    case 'node':
      return `node/${ref.name}`;
  }
}

/** A source read: its layer and, for a node, its config flags (undefined when its Node records none) and kubelet. */
export interface SourceLayer extends Layer {
  flags?: NodeConfigFlags;
  kubelet?: KubeletVersion;
}

/** The API client, made on first use. */
export type ClientSource = () => Promise<RestClient>;

/** The key to read: the one named, else `kubelet`, else the only one there is. */
export function chooseKey(
  cm: Pick<ConfigMap, 'data' | 'binaryData'>,
  ref: Extract<SourceRef, { kind: 'configmap' }>,
): { key: string; bytes: Uint8Array | string } {
  const data = cm.data ?? {};
  const binary = cm.binaryData ?? {};
  const keys = configMapKeys(cm);
  const key = ref.key ?? (keys.includes(DEFAULT_KEY) || keys.length !== 1 ? DEFAULT_KEY : keys[0]!);
  if (!keys.includes(key)) {
    if (ref.key === undefined && keys.length > 1)
      throw new ConfigCommandError(
        'DKC_CONFIG_CONFIGMAP_KEY',
        messages.configMapWhichKey(ref.namespace, ref.name, keys),
      );
    throw new ConfigCommandError(
      'DKC_CONFIG_CONFIGMAP_KEY',
      messages.configMapNoKey(ref.namespace, ref.name, key, keys),
    );
  }
  return { key, bytes: Object.hasOwn(data, key) ? data[key]! : Buffer.from(binary[key]!, 'base64') };
}

async function readConfigMap(ref: Extract<SourceRef, { kind: 'configmap' }>, client: ClientSource): Promise<Layer> {
  const cm = await getConfigMap(await client(), ref.namespace, ref.name);
  if (!cm)
    throw new ConfigCommandError('DKC_CONFIG_CONFIGMAP_NOT_FOUND', messages.configMapNotFound(ref.namespace, ref.name));
  const { key, bytes } = chooseKey(cm, ref);
  return { name: sourceName(ref, key), bytes };
}

/** The node's running config: /configz's `kubeletconfig` object, given back its kind and apiVersion; and its flags. */
async function readNode(ref: Extract<SourceRef, { kind: 'node' }>, client: ClientSource): Promise<SourceLayer> {
  const c = await client();
  let body: { kubeletconfig?: unknown };
  let node: Node;
  try {
    node = await c.get<Node>(`/api/v1/nodes/${encodeURIComponent(ref.name)}`);
  } catch (err) {
    if (isApiError(err, 404))
      throw new ConfigCommandError('DKC_CONFIG_NODE_CONFIGZ', messages.nodeNotFound(ref.name), { cause: err });
    throw err;
  }
  try {
    body = await c.get<{ kubeletconfig?: unknown }>(`/api/v1/nodes/${encodeURIComponent(ref.name)}/proxy/configz`);
  } catch (err) {
    throw new ConfigCommandError('DKC_CONFIG_NODE_CONFIGZ', messages.configzFailed(ref.name, errorMessage(err)), {
      cause: err,
    });
  }
  const config = body?.kubeletconfig;
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new ConfigCommandError('DKC_CONFIG_NODE_CONFIGZ', messages.configzShape(ref.name));
  const flags = readConfigFlags(node.metadata?.annotations);
  const layer: SourceLayer = {
    name: sourceName(ref),
    bytes: JSON.stringify({ kind: KIND, apiVersion: API_VERSION, ...config }),
    kubelet: nodeKubeletVersion(node),
  };
  return flags ? { ...layer, flags } : layer;
}

async function readPath(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    throw new ConfigCommandError('DKC_CONFIG_READ_FAILED', messages.readFailed(path, errorMessage(err)), {
      cause: err,
    });
  }
}

/** One source as a layer; a file's relative paths resolve against its directory, as the kubelet's loader does. */
export async function readSource(ref: SourceRef, client: ClientSource): Promise<SourceLayer> {
  switch (ref.kind) {
    case 'file':
      return { name: ref.path, bytes: await readPath(ref.path), dir: dirname(resolve(ref.path)) };
    case 'configmap':
      return readConfigMap(ref, client);
    case 'node':
      return readNode(ref, client);
  }
}

/** The `.conf` files under a directory, as filepath.WalkDir visits them: lexical order, subdirectories in place. */
async function dropInFiles(dir: string): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const out: string[] = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await dropInFiles(p)));
    else if (extname(e.name) === DROPIN_EXTENSION) out.push(p);
  }
  return out;
}

/** A drop-in source: a directory stands for its `.conf` files, as in the kubelet's --config-dir. */
export async function readDropIns(ref: SourceRef, client: ClientSource): Promise<Layer[]> {
  if (ref.kind !== 'file') return [await readSource(ref, client)];
  let isDir: boolean;
  try {
    isDir = (await stat(ref.path)).isDirectory();
  } catch (err) {
    throw new ConfigCommandError('DKC_CONFIG_READ_FAILED', messages.readFailed(ref.path, errorMessage(err)), {
      cause: err,
    });
  }
  if (!isDir) return [await readSource(ref, client)];
  let files: string[];
  try {
    files = await dropInFiles(ref.path);
  } catch (err) {
    throw new ConfigCommandError('DKC_CONFIG_READ_FAILED', messages.readFailed(ref.path, errorMessage(err)), {
      cause: err,
    });
  }
  return Promise.all(files.map(async (f) => ({ name: f, bytes: await readPath(f) })));
}
