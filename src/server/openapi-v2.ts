// /openapi/v2: the Swagger 2.0 document kubectl before 1.27 reads for `explain` and for client-side validation of
// `create`, `apply`, `replace` and `edit` (a kind with a definition is validated against it; a kind without one is
// left to the server). It carries each served custom kind's schema as kube-apiserver publishes it for kubectl
// (crd/openapiv2.ts) and the built-in definitions those reference (ObjectMeta and what it uses, in Swagger 2.0
// terms). The built-in kinds themselves are left out but for the apps/v1 kinds, so kubectl leaves their validation to
// this server: upstream's definitions require fields (all of a Node's nodeInfo, for one) that objects this server
// accepts may lack.
// Its paths are each endpoint's patch operation, taken from the /openapi/v3 paths (openapi-paths.ts): what kubectl
// reads there is the patch types an endpoint accepts (`consumes`), which decide the patch `kubectl apply` sends when
// it does not read /openapi/v3. kubectl finds kinds through their x-kubernetes-group-version-kind extension.

import { createHash } from 'node:crypto';
import { crdSchemaForOpenApiV2, type TypeMetaProperties } from './crd/openapiv2.js';
import { encodeSwaggerDocument, type SwaggerDocument, type SwaggerPathItem, type SwaggerSchema } from './gnostic.js';
import { addResourcePaths, type ServedResource } from './openapi-paths.js';
import { META, customKindText as text, schemas, type JsonSchema } from './openapi-schemas.js';

/** A served version of a custom kind. */
interface CustomKindInfo {
  group: string;
  version: string;
  kind: string;
  /** The reversed-domain definition name, as in /openapi/v3 (e.g. io.dkc.v1alpha1.NodeConfigRollout). */
  name: string;
  /** The CRD version's openAPIV3Schema. */
  schema: JsonSchema;
}

export interface OpenApiV2Body {
  body: Uint8Array;
  /** A strong entity tag of the body: the SHA-512 of its bytes, quoted, as kube-apiserver tags its documents. */
  etag: string;
}

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';

const isObject = (v: unknown): v is SwaggerSchema => v !== null && typeof v === 'object' && !Array.isArray(v);

function isRefOnly(v: unknown): v is { $ref: string } {
  return isObject(v) && typeof v['$ref'] === 'string' && Object.keys(v).length === 1;
}

/**
 * A built-in schema in Swagger 2.0 terms: references point into #/definitions/ and stand beside their siblings,
 * OpenAPI 3's allOf wrapper undone (kubectl reads a $ref and ignores allOf).
 */
function toV2(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toV2);
  if (!isObject(node)) return node;
  const out: SwaggerSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string')
      out[key] = value.startsWith(V3_REF) ? V2_REF + value.slice(V3_REF.length) : value;
    else if (key === 'allOf' && Array.isArray(value) && value.length === 1 && isRefOnly(value[0]))
      Object.assign(out, toV2(value[0]));
    else out[key] = toV2(value);
  }
  return out;
}

const builtIn = new Map<string, SwaggerSchema>();

function builtInDefinition(name: string): SwaggerSchema | undefined {
  if (!builtIn.has(name) && Object.hasOwn(schemas, name)) builtIn.set(name, toV2(schemas[name]) as SwaggerSchema);
  return builtIn.get(name);
}

/** Adds to `into` every built-in definition its schemas reference, directly or not. */
function addReferenced(into: Record<string, SwaggerSchema>): void {
  const pending: unknown[] = Object.values(into);
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) pending.push(...(node as unknown[]));
    else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (key !== '$ref' || typeof value !== 'string') pending.push(value);
        else if (value.startsWith(V2_REF)) {
          const name = value.slice(V2_REF.length);
          const schema = Object.hasOwn(into, name) ? undefined : builtInDefinition(name);
          if (schema !== undefined) pending.push((into[name] = schema));
        }
      }
    }
  }
}

const typeMeta = (metadata: string, metadataText: string): TypeMetaProperties => ({
  apiVersion: { description: text.apiVersion, type: 'string' },
  kind: { description: text.kind, type: 'string' },
  metadata: { description: metadataText, $ref: `${V2_REF}${META}${metadata}` },
});

const gvk = (c: CustomKindInfo, kind: string) => [{ group: c.group, version: c.version, kind }];

function customDefinitions(c: CustomKindInfo): Record<string, SwaggerSchema> {
  const own = crdSchemaForOpenApiV2(c.schema, typeMeta('ObjectMeta', text.metadata));
  const listMeta = typeMeta('ListMeta', text.listMetadata);
  return {
    [c.name]: { ...own, 'x-kubernetes-group-version-kind': gvk(c, c.kind) },
    [`${c.name}List`]: {
      description: text.list(c.kind),
      type: 'object',
      required: ['items'],
      properties: {
        apiVersion: listMeta.apiVersion,
        items: { description: text.items(c.kind), type: 'array', items: { $ref: `${V2_REF}${c.name}` } },
        kind: listMeta.kind,
        metadata: listMeta.metadata,
      },
      'x-kubernetes-group-version-kind': gvk(c, `${c.kind}List`),
    },
  };
}

/**
 * The built-in groups whose kinds are published here too: the apps/v1 kinds, whose required fields (a selector, a
 * template, its containers and their names) this server requires as well, so kubectl 1.20 explains them and
 * validates them as it would against kube-apiserver.
 */
const DOCUMENTED_GROUPS = new Set(['apps']);

/** A built-in kind's definition and its list's, under upstream's names. */
function builtInDefinitions(r: ServedResource): Record<string, SwaggerSchema> {
  const out: Record<string, SwaggerSchema> = {};
  for (const kind of [r.kind, `${r.kind}List`]) {
    const name = `io.k8s.api.${r.group}.${r.version}.${kind}`;
    const schema = builtInDefinition(name);
    if (schema !== undefined) out[name] = schema;
  }
  return out;
}

const isV3Ref = (v: unknown): v is { $ref: string } => isRefOnly(v) && v.$ref.startsWith(V3_REF);

/** A v3 parameter in Swagger 2.0 terms: its schema's type beside its name. */
function parameterV2(p: unknown): SwaggerSchema {
  const { schema, ...rest } = isObject(p) ? p : {};
  return { ...rest, ...(isObject(schema) ? schema : {}) };
}

/** A v3 patch operation in Swagger 2.0 terms; `defined` says which definitions a response may name. */
function patchOperationV2(op: SwaggerSchema, defined: (name: string) => boolean): SwaggerSchema {
  const { requestBody, parameters, responses, ...rest } = op;
  const body = isObject(requestBody) && isObject(requestBody['content']) ? requestBody['content'] : {};
  const bodySchema = Object.values(body)
    .map((c) => (isObject(c) ? c['schema'] : undefined))
    .find(isV3Ref);
  const produced = new Set<string>();
  const responsesV2: SwaggerSchema = {};
  for (const [code, response] of Object.entries(isObject(responses) ? responses : {})) {
    if (!isObject(response)) continue;
    const content = isObject(response['content']) ? response['content'] : {};
    const out: SwaggerSchema = { description: response['description'] };
    for (const [type, media] of Object.entries(content)) {
      produced.add(type);
      const schema = isObject(media) ? media['schema'] : undefined;
      if (isV3Ref(schema) && defined(schema.$ref.slice(V3_REF.length))) out['schema'] = toV2(schema);
    }
    responsesV2[code] = out;
  }
  return {
    ...rest,
    consumes: Object.keys(body),
    produces: [...produced],
    parameters: [
      { name: 'body', in: 'body', required: true, ...(bodySchema ? { schema: toV2(bodySchema) } : {}) },
      ...(Array.isArray(parameters) ? parameters.map(parameterV2) : []),
    ],
    responses: responsesV2,
  };
}

/** The patch operation of every endpoint of `resources` that has one, by path, with the definitions they name. */
function patchPaths(
  resources: readonly ServedResource[],
  definitions: Record<string, SwaggerSchema>,
): Record<string, SwaggerPathItem> {
  const v3: Record<string, Record<string, unknown>> = {};
  for (const r of resources) addResourcePaths(v3, { group: r.group, version: r.version }, r, {});
  const patchDefinition = `${META}Patch`;
  const defined = (name: string) => Object.hasOwn(definitions, name);
  const out: Record<string, SwaggerPathItem> = {};
  for (const path of Object.keys(v3).sort()) {
    const item = v3[path] as Record<string, unknown>;
    const op = item['patch'];
    if (!isObject(op) || op['x-kubernetes-action'] !== 'patch') continue;
    const schema = builtInDefinition(patchDefinition);
    if (schema !== undefined) definitions[patchDefinition] = schema;
    out[path] = {
      patch: patchOperationV2(op, defined),
      ...(Array.isArray(item['parameters']) ? { parameters: item['parameters'].map(parameterV2) } : {}),
    };
  }
  return out;
}

/**
 * The /openapi/v2 document: the patch operations of `resources`, the served custom kinds and the built-in
 * definitions they use, sorted by name.
 */
export function openapiV2Document(resources: readonly ServedResource[], serverVersion: string): SwaggerDocument {
  const all: Record<string, SwaggerSchema> = {};
  for (const r of resources) {
    if (r.schema !== undefined)
      Object.assign(all, customDefinitions({ group: r.group, version: r.version, kind: r.kind, ...r.schema }));
    else if (DOCUMENTED_GROUPS.has(r.group)) Object.assign(all, builtInDefinitions(r));
  }
  addReferenced(all);
  const paths = patchPaths(resources, all);
  const definitions = Object.fromEntries(
    Object.keys(all)
      .sort()
      .map((name) => [name, all[name] as SwaggerSchema]),
  );
  return { swagger: '2.0', info: { title: 'Kubernetes', version: serverVersion }, paths, definitions };
}

let last: { key: string; body: OpenApiV2Body } | undefined;

/**
 * Body for GET /openapi/v2 (Content-Type OPENAPI_V2_CONTENT_TYPE) and its entity tag. Encoded again only when the
 * served resources change; callers must not modify the bytes.
 */
export function openapiV2Protobuf(resources: readonly ServedResource[], serverVersion: string): OpenApiV2Body {
  const key = JSON.stringify([serverVersion, resources]);
  if (last?.key !== key) {
    const body = encodeSwaggerDocument(openapiV2Document(resources, serverVersion));
    const etag = `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;
    last = { key, body: { body, etag } };
  }
  return last.body;
}
