// The OpenAPI documents kubectl fetches: /openapi/v2 (protobuf, read by kubectl before 1.27 for `explain` and
// client-side validation of `edit`, `apply`, `create -f`) and /openapi/v3 with one document per group-version
// (used by `explain`, by kubectl ≥1.27 to learn that the server validates fields itself, so it skips v2, and by
// `kubectl apply` to learn whether a kind takes strategic merge patch). The component schemas live in
// openapi-schemas.ts and a resource's paths in openapi-paths.ts; this module assembles the v3 documents.

import { createHash } from 'node:crypto';
import { addResourcePaths, parseGroupVersion, type ResourceInfo } from './openapi-paths.js';
import { META, ref, schemas, type JsonSchema } from './openapi-schemas.js';

export type { JsonSchema } from './openapi-schemas.js';
export type { ResourceInfo, ServedResource } from './openapi-paths.js';

export interface OpenApiV3Root {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenApiV3Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** The media type kubectl asks /openapi/v2 for, and that the answer must carry. */
export const OPENAPI_V2_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

// ---------------------------------------------------------------------------------------------------
// /openapi/v2

// Built in openapi-v2.ts; re-exported so that the server loads one module for every OpenAPI document.
export { openapiV2Document, openapiV2Protobuf, type OpenApiV2Body } from './openapi-v2.js';

// ---------------------------------------------------------------------------------------------------
// /openapi/v3

/** "v1" → "api/v1", "coordination.k8s.io/v1" → "apis/coordination.k8s.io/v1". */
export function openapiV3PathFor(groupVersion: string): string {
  return groupVersion.includes('/') ? `apis/${groupVersion}` : `api/${groupVersion}`;
}

/** Upstream's hash format: the SHA-512 of the served bytes, upper-case hex. */
export function openapiV3Hash(document: object): string {
  return createHash('sha512').update(JSON.stringify(document)).digest('hex').toUpperCase();
}

let schemaFingerprint: string | undefined;

/**
 * Body for GET /openapi/v3. kubectl caches each document under its URL, so the hash must change when
 * the document does: pass the documents to hash them exactly; otherwise the hash covers the group-version
 * and every schema this build can publish, which is what the documents are derived from.
 */
export function openapiV3Root(groupVersions: string[], documents?: Readonly<Record<string, object>>): OpenApiV3Root {
  schemaFingerprint ??= openapiV3Hash(schemas);
  const paths: OpenApiV3Root['paths'] = {};
  const byPath = [...groupVersions].sort((a, b) => (openapiV3PathFor(a) < openapiV3PathFor(b) ? -1 : 1));
  for (const gv of byPath) {
    const doc = documents !== undefined && Object.hasOwn(documents, gv) ? documents[gv] : undefined;
    const hash =
      doc !== undefined ? openapiV3Hash(doc) : openapiV3Hash({ groupVersion: gv, schemas: schemaFingerprint });
    const path = openapiV3PathFor(gv);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}

/** Every schema reachable from `roots` through $ref, so each document carries exactly what it uses. */
function reachableSchemas(roots: unknown, extra: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const pending: unknown[] = [roots];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...(node as unknown[]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
          const name = value.slice('#/components/schemas/'.length);
          if (Object.hasOwn(out, name)) continue;
          const schema = Object.hasOwn(extra, name)
            ? extra[name]
            : Object.hasOwn(schemas, name)
              ? schemas[name]
              : undefined;
          if (schema === undefined) continue;
          out[name] = schema;
          pending.push(schema);
        } else {
          pending.push(value);
        }
      }
    }
  }
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((name) => [name, out[name] as JsonSchema]),
  );
}

/**
 * Body for GET /openapi/v3/api/v1 (or /openapi/v3/apis/<group>/<version>): an OpenAPI 3.0 document with
 * the paths of `resources` and the component schemas they reference. `serverVersion` only fills
 * info.version; pass the gitVersion /version reports.
 */
export function openapiV3Document(
  groupVersion: string,
  resources: ResourceInfo[],
  serverVersion = 'v1.22.17-dkc.0',
): OpenApiV3Document {
  const gv = parseGroupVersion(groupVersion);
  const extra: Record<string, JsonSchema> = {};
  const paths: OpenApiV3Document['paths'] = {};
  for (const resource of [...resources].sort((a, b) => a.plural.localeCompare(b.plural))) {
    addResourcePaths(paths, gv, resource, extra);
  }
  // Status is what every failing operation returns, so it is published even if no operation names it.
  const roots: unknown[] = [paths, ref(`${META}Status`)];
  const sortedPaths = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((p) => [p, paths[p] as Record<string, unknown>]),
  );
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: serverVersion },
    paths: sortedPaths,
    components: { schemas: reachableSchemas(roots, extra) },
  };
}
