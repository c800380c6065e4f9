// The CustomResourceDefinition resource itself, and the resource each served version of a CRD becomes: identity,
// scope, columns from additionalPrinterColumns, validation against the version's schema, pruning and defaults.

import type { FieldError } from '../../api/field.js';
import type { KubeObject } from '../../api/types.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../api/validation/objectmeta.js';
import { isDNS1123Subdomain } from '../../api/validation/names.js';
import { age } from '../../api/humanize.js';
import type { ResourceDef, TableColumn, Verb } from '../resourcedef.js';
import { compileSchema, evaluateColumn, JsonPathError, parseJsonPath } from './schema.js';
import type { Crd, CrdVersion, PrinterColumn } from './types.js';
import { validateCrdCreate, validateCrdUpdate } from './validation.js';

const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const column = (
  name: string,
  type: TableColumn['type'],
  description: string,
  priority = 0,
  format = '',
): TableColumn => ({
  name,
  type,
  format,
  description,
  priority,
});
const NAME = column('Name', 'string', 'Name must be unique within a namespace.', 0, 'name');

export const customResourceDefinitions: ResourceDef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  verbs: ALL_VERBS,
  statusSubresource: true,
  proxySubresource: false,
  structFields: ['spec', 'status'],
  generation: true,
  fields: {},
  columns: [NAME, column('Created At', 'date', 'Date of creation')],
  row: (o) => [o.metadata.name, o.metadata.creationTimestamp ?? ''],
  validation: { create: validateCrdCreate, update: validateCrdUpdate },
  // A new CRD's status is the server's to write, as apiextensions-apiserver's strategy has it: only the storage
  // version is recorded as stored.
  prepareForCreate(o) {
    const storage = ((o['spec'] as Crd['spec'] | undefined)?.versions ?? []).find((v) => v?.storage === true)?.name;
    o['status'] = storage ? { storedVersions: [storage] } : {};
  },
};

function versionColumns(columns: PrinterColumn[]): TableColumn[] {
  if (columns.length === 0)
    return [
      NAME,
      column(
        'Age',
        'date',
        'CreationTimestamp is a timestamp representing the server time when this object was created.',
      ),
    ];
  const type = (t: string | undefined): TableColumn['type'] =>
    t === 'integer' || t === 'number' || t === 'boolean' || t === 'date' ? t : 'string';
  return [
    NAME,
    ...columns.map((c) => column(c.name ?? '', type(c.type), c.description ?? '', c.priority ?? 0, c.format ?? '')),
  ];
}

/** Parsed once per CRD version; a path that does not parse gives empty cells, as kube-apiserver's convertor does. */
function cellRenderer(c: PrinterColumn): (obj: KubeObject, now: number) => unknown {
  let steps: ReturnType<typeof parseJsonPath> | undefined;
  try {
    steps = parseJsonPath(c.jsonPath ?? '');
  } catch (err) {
    if (!(err instanceof JsonPathError)) throw err;
  }
  return (obj, now) => (steps ? evaluateColumn(obj, steps, c.type ?? 'string', now) : null);
}

/** The reversed-domain OpenAPI name kube-apiserver publishes a custom kind's schema under. */
export function schemaName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

/** The served resource of one version of an established CRD. */
export function customResourceDef(crd: Crd, version: CrdVersion): ResourceDef {
  const names = crd.status?.acceptedNames?.plural ? crd.status.acceptedNames : (crd.spec.names ?? {});
  const group = crd.spec.group ?? '';
  const kind = names.kind ?? '';
  const namespaced = crd.spec.scope === 'Namespaced';
  const openAPIV3Schema = version.schema?.openAPIV3Schema ?? {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
  };
  const schema = compileSchema(openAPIV3Schema);
  const storage = (crd.spec.versions ?? []).find((v) => v.storage)?.name ?? version.name ?? '';
  const printer = version.additionalPrinterColumns ?? [];
  const cells = printer.map(cellRenderer);
  const validateMeta = (obj: KubeObject): FieldError[] =>
    validateObjectMeta(obj.metadata, namespaced, (n) => isDNS1123Subdomain(n));
  const body = (obj: KubeObject) => obj as unknown as Record<string, unknown>;
  const statusSubresource = version.subresources?.status !== undefined && version.subresources.status !== null;
  return {
    group,
    version: version.name ?? '',
    plural: names.plural ?? '',
    singular: names.singular || kind.toLowerCase(),
    kind,
    namespaced,
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    verbs: ALL_VERBS,
    statusSubresource,
    proxySubresource: false,
    generation: true,
    fields: {},
    columns: versionColumns(printer),
    // With a status subresource, status is written through it only: a create cannot set it (kube-apiserver's
    // customresource strategy), or a forged status would be taken for the controller's.
    ...(statusSubresource ? { prepareForCreate: (obj: KubeObject) => void delete obj['status'] } : {}),
    row: (o, now) =>
      printer.length === 0
        ? [o.metadata.name, age(o.metadata.creationTimestamp, now)]
        : [o.metadata.name, ...cells.map((cell) => cell(o, now))],
    validation: {
      create: (obj) => [...validateMeta(obj), ...schema.validate(body(obj))],
      update: (obj, old) => [
        ...validateMeta(obj),
        ...validateObjectMetaUpdate(obj.metadata, old.metadata),
        ...schema.validate(body(obj)),
      ],
    },
    custom: {
      crdUid: crd.metadata.uid ?? '',
      storageApiVersion: `${group}/${storage}`,
      applyDefaults: (obj) => schema.applyDefaults(obj),
      prune: (obj) => schema.prune(obj),
      validate: (obj) => schema.validate(obj),
      openapi: { name: schemaName(group, version.name ?? '', kind), schema: openAPIV3Schema },
    },
  };
}
