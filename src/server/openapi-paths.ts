// The paths of a served resource in the OpenAPI documents: its operations (list, create, read, replace, patch,
// delete, status, proxy) as kube-apiserver publishes them in /openapi/v3, with the schemas they name. /openapi/v3
// (openapi.ts) publishes them whole; /openapi/v2 (openapi-v2.ts) publishes their patch operations.

import { CORE, COORDINATION, META, customKindText as text, ref, schemas, type JsonSchema } from './openapi-schemas.js';
import { SCALE_PATCH_MEDIA_TYPES } from './patchtypes.js';

/** A served resource, as the document generator needs to know it. */
export type ResourceInfo = {
  /** e.g. "nodes" */
  plural: string;
  /** e.g. "Node" */
  kind: string;
  namespaced: boolean;
  /** Discovery verbs: get, list, watch, create, update, patch, delete, deletecollection. */
  verbs: string[];
  /** e.g. ["status", "proxy"], ["status", "finalize"] */
  subresources: string[];
  /** The media types its patch operations accept (patchtypes.ts decides them; the documents list exactly these). */
  patchTypes: readonly string[];
  /** A custom resource's schema (from its CRD), published under `name` (reversed-domain, as kube-apiserver does). */
  schema?: { name: string; schema: JsonSchema };
};

/** A served resource with its group-version, as /openapi/v2 (one document for all of them) needs it. */
export type ServedResource = ResourceInfo & { group: string; version: string };

export interface GroupVersion {
  group: string;
  version: string;
}

export function parseGroupVersion(groupVersion: string): GroupVersion {
  const slash = groupVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: groupVersion }
    : { group: groupVersion.slice(0, slash), version: groupVersion.slice(slash + 1) };
}

function schemaPackage({ group, version }: GroupVersion): string {
  if (group === '' && version === 'v1') return CORE;
  if (group === 'coordination.k8s.io' && version === 'v1') return COORDINATION;
  const short = group === '' ? 'core' : (group.split('.')[0] as string);
  return `io.k8s.api.${short}.${version}.`;
}

/** The definition name of a kind, adding a bare-bones schema when we have none for it. */
function kindSchemaName(gv: GroupVersion, kind: string, extra: Record<string, JsonSchema>): string {
  const name = `${schemaPackage(gv)}${kind}`;
  if (!Object.hasOwn(schemas, name) && !Object.hasOwn(extra, name)) {
    extra[name] = {
      description: `${kind} object.`,
      type: 'object',
      properties: {
        apiVersion: { description: 'The versioned schema of this representation of the object.', type: 'string' },
        kind: { description: 'The kind of REST resource this object represents.', type: 'string' },
        metadata: { allOf: [ref(`${META}ObjectMeta`)], default: {}, description: 'Standard object metadata.' },
      },
      'x-kubernetes-group-version-kind': [{ group: gv.group, version: gv.version, kind }],
    };
  }
  return name;
}

const gvkOf = (gv: GroupVersion, kind: string) => [{ group: gv.group, version: gv.version, kind }];

/** A CRD version's schema as kube-apiserver publishes it: metadata is ObjectMeta, and the kind is named. */
function customSchemaName(
  gv: GroupVersion,
  kind: string,
  custom: { name: string; schema: JsonSchema },
  extra: Record<string, JsonSchema>,
): string {
  const props = { ...((custom.schema['properties'] as Record<string, JsonSchema> | undefined) ?? {}) };
  props['apiVersion'] = { description: text.apiVersion, type: 'string' };
  props['kind'] = { description: text.kind, type: 'string' };
  props['metadata'] = { allOf: [ref(`${META}ObjectMeta`)], description: text.metadata };
  extra[custom.name] = {
    ...custom.schema,
    type: 'object',
    properties: props,
    'x-kubernetes-group-version-kind': gvkOf(gv, kind),
  };
  return custom.name;
}

function customListSchemaName(gv: GroupVersion, kind: string, name: string, extra: Record<string, JsonSchema>): string {
  extra[`${name}List`] = {
    description: text.list(kind),
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: text.apiVersion, type: 'string' },
      items: { description: text.items(kind), type: 'array', items: ref(name) },
      kind: { description: text.kind, type: 'string' },
      metadata: { allOf: [ref(`${META}ListMeta`)], description: text.listMetadata },
    },
    'x-kubernetes-group-version-kind': gvkOf(gv, `${kind}List`),
  };
  return `${name}List`;
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "" → "CoreV1", "coordination.k8s.io" → "CoordinationV1", as upstream's operation ids read. */
function operationPrefix(gv: GroupVersion): string {
  const group = gv.group === '' ? 'core' : (gv.group.split('.')[0] as string);
  return `${upperFirst(group.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()))}${upperFirst(gv.version)}`;
}

const stringSchema = { type: 'string', uniqueItems: true };
const query = (name: string, description: string, schema: JsonSchema = stringSchema): JsonSchema => ({
  name,
  in: 'query',
  description,
  schema,
});
const pathParam = (name: string, description: string): JsonSchema => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: stringSchema,
});

const params = {
  pretty: query('pretty', "If 'true', the output is pretty printed."),
  dryRun: query(
    'dryRun',
    'When present, indicates that modifications should not be persisted. The only valid value is "All".',
  ),
  fieldManager: query(
    'fieldManager',
    'A name associated with the actor making these changes, recorded in managedFields.',
  ),
  // Its presence on patch operations is what tells kubectl ≥1.27 that the server validates fields itself.
  fieldValidation: query(
    'fieldValidation',
    'How to treat unknown or duplicate fields in the request body: "Ignore", "Warn" or "Strict".',
  ),
  force: query('force', 'Force an apply request to take conflicting fields over. Only for apply patches.', {
    type: 'boolean',
    uniqueItems: true,
  }),
  gracePeriodSeconds: query('gracePeriodSeconds', 'Seconds before the object should be deleted.', {
    type: 'integer',
    uniqueItems: true,
  }),
  propagationPolicy: query(
    'propagationPolicy',
    'Garbage collection policy for dependents: "Orphan", "Background" or "Foreground".',
  ),
  list: [
    query('allowWatchBookmarks', 'Ask for BOOKMARK events on watches.', { type: 'boolean', uniqueItems: true }),
    query('continue', 'The continue token of a previous limited list.'),
    query('fieldSelector', 'Select objects by field values, e.g. metadata.name=node-1 or spec.nodeName=node-1.'),
    query('labelSelector', 'Select objects by labels.'),
    query('limit', 'The maximum number of items to return.', { type: 'integer', uniqueItems: true }),
    query('resourceVersion', 'The resource version to list or watch from.'),
    query('resourceVersionMatch', 'How resourceVersion applies to a list.'),
    query('timeoutSeconds', 'Timeout of a list or watch call.', { type: 'integer', uniqueItems: true }),
    query('watch', 'Watch for changes instead of listing, starting at resourceVersion.', {
      type: 'boolean',
      uniqueItems: true,
    }),
  ],
};

const jsonContent = (schema: JsonSchema): JsonSchema => ({
  'application/json': { schema },
  'application/yaml': { schema },
  'application/vnd.kubernetes.protobuf': { schema },
});
const ok = (schema: JsonSchema, ...codes: string[]): JsonSchema => {
  const responses: JsonSchema = {};
  for (const code of codes) {
    responses[code] = {
      description: code === '201' ? 'Created' : code === '202' ? 'Accepted' : 'OK',
      content: jsonContent(schema),
    };
  }
  responses['401'] = { description: 'Unauthorized' };
  return responses;
};
const bodyOf = (schema: JsonSchema): JsonSchema => ({ content: { '*/*': { schema } }, required: true });
const patchBodyOf = (types: readonly string[]): JsonSchema => ({
  content: Object.fromEntries([...types].sort().map((type) => [type, { schema: ref(`${META}Patch`) }])),
  required: true,
});
const deleteBody: JsonSchema = { content: { '*/*': { schema: ref(`${META}DeleteOptions`) } } };

interface OperationSpec {
  id: string;
  description: string;
  action: string;
  kind: string;
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: JsonSchema;
}

function operation(tag: string, gv: GroupVersion, spec: OperationSpec): JsonSchema {
  return {
    tags: [tag],
    description: spec.description,
    operationId: spec.id,
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses: spec.responses,
    'x-kubernetes-action': spec.action,
    'x-kubernetes-group-version-kind': { group: gv.group, version: gv.version, kind: spec.kind },
  };
}

const writeParams = [params.dryRun, params.fieldManager, params.fieldValidation];
const PROXY_METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'] as const;

/** Adds the paths of `resource` to `paths`, and to `extra` the schemas they name that openapi-schemas.ts lacks. */
export function addResourcePaths(
  paths: Record<string, Record<string, unknown>>,
  gv: GroupVersion,
  resource: ResourceInfo,
  extra: Record<string, JsonSchema>,
): void {
  const verbs = new Set(resource.verbs);
  const { kind, plural } = resource;
  const tag = `${gv.group === '' ? 'core' : (gv.group.split('.')[0] as string)}_${gv.version}`;
  const prefix = operationPrefix(gv);
  const ns = resource.namespaced ? 'Namespaced' : '';
  const base = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
  const scope = resource.namespaced ? `${base}/namespaces/{namespace}` : base;
  const collection = `${scope}/${plural}`;
  const item = `${collection}/{name}`;
  const kindRef = ref(
    resource.schema ? customSchemaName(gv, resource.kind, resource.schema, extra) : kindSchemaName(gv, kind, extra),
  );
  const listRef = ref(
    resource.schema
      ? customListSchemaName(gv, resource.kind, resource.schema.name, extra)
      : kindSchemaName(gv, `${kind}List`, extra),
  );
  const statusRef = ref(`${META}Status`);
  const scopeParams = resource.namespaced
    ? [pathParam('namespace', 'object name and auth scope, such as for teams and projects')]
    : [];
  const op = (spec: OperationSpec): JsonSchema => operation(tag, gv, spec);

  const collectionOps: Record<string, unknown> = {};
  if (verbs.has('list')) {
    collectionOps.get = op({
      id: `list${prefix}${ns}${kind}`,
      description: `list or watch objects of kind ${kind}`,
      action: 'list',
      kind,
      parameters: params.list,
      responses: ok(listRef, '200'),
    });
  }
  if (verbs.has('create')) {
    collectionOps.post = op({
      id: `create${prefix}${ns}${kind}`,
      description: `create a ${kind}`,
      action: 'post',
      kind,
      parameters: writeParams,
      requestBody: bodyOf(kindRef),
      responses: ok(kindRef, '200', '201', '202'),
    });
  }
  if (verbs.has('deletecollection')) {
    collectionOps.delete = op({
      id: `delete${prefix}Collection${ns}${kind}`,
      description: `delete collection of ${kind}`,
      action: 'deletecollection',
      kind,
      parameters: [...params.list, params.dryRun, params.gracePeriodSeconds, params.propagationPolicy],
      requestBody: deleteBody,
      responses: ok(statusRef, '200'),
    });
  }
  if (Object.keys(collectionOps).length > 0) {
    paths[collection] = { ...collectionOps, parameters: [...scopeParams, params.pretty] };
  }

  if (resource.namespaced && verbs.has('list')) {
    paths[`${base}/${plural}`] = {
      get: op({
        id: `list${prefix}${kind}ForAllNamespaces`,
        description: `list or watch objects of kind ${kind} in all namespaces`,
        action: 'list',
        kind,
        parameters: params.list,
        responses: ok(listRef, '200'),
      }),
      parameters: [params.pretty],
    };
  }

  const itemParams = [pathParam('name', `name of the ${kind}`), ...scopeParams, params.pretty];
  // What a subresource serves when it is not the resource's own kind (a `scale` serves autoscaling/v1 Scale).
  type Served = {
    ref: JsonSchema;
    kind: string;
    op: (spec: OperationSpec) => JsonSchema;
    patchTypes: readonly string[];
  };
  const own: Served = { ref: kindRef, kind, op, patchTypes: resource.patchTypes };
  const itemOps = (suffix: string, what: string, allowed: Set<string>, served = own): Record<string, unknown> => {
    const ops: Record<string, unknown> = {};
    if (allowed.has('get')) {
      ops.get = served.op({
        id: `read${prefix}${ns}${kind}${suffix}`,
        description: `read ${what} of the specified ${kind}`,
        action: 'get',
        kind: served.kind,
        responses: ok(served.ref, '200'),
      });
    }
    if (allowed.has('update')) {
      ops.put = served.op({
        id: `replace${prefix}${ns}${kind}${suffix}`,
        description: `replace ${what} of the specified ${kind}`,
        action: 'put',
        kind: served.kind,
        parameters: writeParams,
        requestBody: bodyOf(served.ref),
        responses: ok(served.ref, '200', '201'),
      });
    }
    if (allowed.has('patch')) {
      ops.patch = served.op({
        id: `patch${prefix}${ns}${kind}${suffix}`,
        description: `partially update ${what} of the specified ${kind}`,
        action: 'patch',
        kind: served.kind,
        parameters: [...writeParams, params.force],
        requestBody: patchBodyOf(served.patchTypes),
        responses: ok(served.ref, '200', '201'),
      });
    }
    if (allowed.has('delete') && suffix === '') {
      ops.delete = op({
        id: `delete${prefix}${ns}${kind}`,
        description: `delete a ${kind}`,
        action: 'delete',
        kind,
        parameters: [params.dryRun, params.gracePeriodSeconds, params.propagationPolicy],
        requestBody: deleteBody,
        responses: ok(statusRef, '200', '202'),
      });
    }
    return ops;
  };

  const mainOps = itemOps('', 'the', verbs);
  if (Object.keys(mainOps).length > 0) paths[item] = { ...mainOps, parameters: itemParams };

  if (resource.subresources.includes('status')) {
    // Status follows the main resource's read and write verbs, as upstream serves it.
    const statusOps = itemOps('Status', 'status', new Set(['get', 'update', 'patch'].filter((v) => verbs.has(v))));
    if (Object.keys(statusOps).length > 0) paths[`${item}/status`] = { ...statusOps, parameters: itemParams };
  }

  if (resource.subresources.includes('scale')) {
    const scaleGv = { group: 'autoscaling', version: 'v1' };
    const scale: Served = {
      ref: ref(kindSchemaName(scaleGv, 'Scale', extra)),
      kind: 'Scale',
      op: (spec) => operation(tag, scaleGv, spec),
      patchTypes: SCALE_PATCH_MEDIA_TYPES,
    };
    const scaleOps = itemOps('Scale', 'scale', new Set(['get', 'update', 'patch']), scale);
    paths[`${item}/scale`] = { ...scaleOps, parameters: itemParams };
  }

  if (resource.subresources.includes('finalize')) {
    // A namespace's /finalize: PUT only, the one write of spec.finalizers.
    const finalizeOps = itemOps('Finalize', 'finalize', new Set(['update']));
    paths[`${item}/finalize`] = { ...finalizeOps, parameters: itemParams };
  }

  if (resource.subresources.includes('proxy')) {
    const proxyKind = `${kind}ProxyOptions`;
    const proxyOps = (withPath: boolean): Record<string, unknown> => {
      const ops: Record<string, unknown> = {};
      for (const method of PROXY_METHODS) {
        ops[method] = operation(tag, gv, {
          id: `connect${prefix}${upperFirst(method)}${ns}${kind}Proxy${withPath ? 'WithPath' : ''}`,
          description: `connect ${method.toUpperCase()} requests to proxy of ${kind}`,
          action: 'connect',
          kind: proxyKind,
          responses: {
            '200': { description: 'OK', content: { '*/*': { schema: { type: 'string' } } } },
            '401': { description: 'Unauthorized' },
          },
        });
      }
      return ops;
    };
    const proxyName = pathParam('name', `name of the ${proxyKind}`);
    paths[`${item}/proxy`] = {
      ...proxyOps(false),
      parameters: [
        proxyName,
        ...scopeParams,
        query('path', `Path is the URL path to use for the current proxy request to the ${kind.toLowerCase()}.`),
      ],
    };
    paths[`${item}/proxy/{path}`] = {
      ...proxyOps(true),
      parameters: [proxyName, ...scopeParams, pathParam('path', 'path to the resource')],
    };
  }
}

/** Every schema reachable from `roots` through $ref, so each document carries exactly what it uses. */
