// The CustomResourceDefinitions dkc ships (deploy/crds/*.yaml) are installed by the server at start: created when
// absent, updated when their spec differs, left alone otherwise. Replicas starting together converge: a lost create
// race becomes an update, and an update re-applies on conflict.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errors, StatusError } from '../../api/errors.js';
import { deepEqual } from '../../api/equal.js';
import type { KubeObject } from '../../api/types.js';
import { klog } from '../../util/klog.js';
import type { ResourceStorage, WriteContext } from '../resources.js';
import { msg } from './messages.js';

/** deploy/crds of this package (dist/src/server/crd/ → the package root). */
export const SHIPPED_CRD_DIR = fileURLToPath(new URL('../../../../deploy/crds/', import.meta.url));

export interface CrdInstallHost {
  crdStorage(): ResourceStorage | undefined;
  reconcileCrd(obj: KubeObject): Promise<KubeObject>;
}

const system = (): WriteContext => ({
  user: { name: 'system:apiserver', groups: ['system:masters'] },
  dryRun: false,
  fieldValidation: 'Strict',
  warnings: [],
});

/** Every CustomResourceDefinition document of the YAML files in `dir`, in file-name order. */
export async function readCrdManifests(dir: string): Promise<KubeObject[]> {
  const { parseAllDocuments } = await import('yaml');
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  const out: KubeObject[] = [];
  for (const f of files) {
    for (const doc of parseAllDocuments(await readFile(join(dir, f), 'utf8'))) {
      if (doc.errors.length) throw new Error(msg.installFailed(f, doc.errors[0]!.message));
      const obj = doc.toJS() as KubeObject | null;
      if (obj === null) continue;
      if (obj.apiVersion !== 'apiextensions.k8s.io/v1' || obj.kind !== 'CustomResourceDefinition')
        throw new Error(msg.notACrd(f));
      out.push(obj);
    }
  }
  return out;
}

async function installOne(host: CrdInstallHost, storage: ResourceStorage, crd: KubeObject): Promise<void> {
  const name = crd.metadata.name ?? '';
  let current: KubeObject | undefined;
  try {
    current = await storage.get('', name);
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 404)) throw err;
  }
  if (!current) {
    klog.info(msg.installing(name));
    try {
      return void (await host.reconcileCrd(await storage.create('', structuredClone(crd), system())));
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      current = await storage.get('', name);
    }
  }
  if (deepEqual(current['spec'], crd['spec'])) return void (await host.reconcileCrd(current));
  klog.info(msg.installing(name));
  const { resourceVersion: _rv, ...metadata } = current.metadata;
  const updated = await storage.update('', name, { ...current, metadata, spec: crd['spec'] }, '', system());
  await host.reconcileCrd(updated);
}

export async function installCrds(host: CrdInstallHost, crds: KubeObject[]): Promise<void> {
  const storage = host.crdStorage();
  if (!storage) throw errors.internal(new Error('CustomResourceDefinitions are not served'));
  for (const crd of crds) await installOne(host, storage, crd);
}
