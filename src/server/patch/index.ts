// Entry point of the patch engines: picks the engine for a PATCH request's content type and applies
// it to the stored object. All engines are pure: they return a new object, never touch their inputs,
// and report every failure as a PatchError (see errors.ts for how codes map to HTTP statuses).
// Server-side apply (application/apply-patch+yaml) is a patch type too, but no engine here: it merges by the
// managers' field sets (../fieldmanager).

import { PatchError } from './errors.js';
import { applyJsonPatch } from './jsonpatch.js';
import type { JsonObject } from './json.js';
import { applyMergePatch } from './mergepatch.js';
import { applyStrategicMergePatch } from './strategic.js';

export type PatchContentType = 'json' | 'merge' | 'strategic' | 'apply';

const mediaTypes: Readonly<Record<string, PatchContentType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** Maps a Content-Type header (parameters allowed) to its patch type; undefined if it is not one. */
export function patchContentTypeOf(header: string): PatchContentType | undefined {
  const media = (header.split(';')[0] ?? '').trim().toLowerCase();
  return Object.prototype.hasOwnProperty.call(mediaTypes, media) ? mediaTypes[media] : undefined;
}

/**
 * Applies `patch` (the already-parsed request body) to `original`, an object of `kind`, with the
 * engine for `contentType`. Throws PatchError only.
 */
export function applyPatch(
  contentType: PatchContentType,
  original: JsonObject,
  patch: unknown,
  kind: string,
): JsonObject {
  switch (contentType) {
    case 'json':
      return applyJsonPatch(original, patch);
    case 'merge':
      return applyMergePatch(original, patch);
    case 'strategic':
      return applyStrategicMergePatch(original, patch, kind);
    default:
      throw new PatchError('DKC_PATCH_INVALID', `unsupported patch type ${JSON.stringify(String(contentType))}`);
  }
}

export { PatchError, patchErrorHttpStatus, isPatchError, type PatchErrorCode } from './errors.js';
export { MAX_DEPTH, type JsonArray, type JsonObject, type JsonPrimitive, type JsonValue } from './json.js';
export {
  applyJsonPatch,
  parseJsonPatch,
  parsePointer,
  MAX_JSON_PATCH_OPERATIONS,
  MAX_ACCUMULATED_COPY_SIZE,
} from './jsonpatch.js';
export type { JsonPatchOperation, JsonPatchOpName } from './jsonpatch.js';
export { applyMergePatch } from './mergepatch.js';
export { applyStrategicMergePatch, applyStrategicMergePatchWithMeta } from './strategic.js';
export { patchMetaForKind, knownPatchKinds, type PatchMeta } from './schema.js';
