// JSON merge patch (RFC 7386), served for application/merge-patch+json: objects merge recursively,
// null removes a member, anything else (arrays included) replaces. Kubernetes only accepts an
// object as the patch body, since the result must still be an object.

import { PatchError, toPatchError } from './errors.js';
import {
  deleteOwn,
  getOwn,
  importJson,
  importObject,
  isJsonObject,
  jsonKind,
  setOwn,
  type JsonObject,
  type JsonValue,
} from './json.js';

/** Applies an RFC 7386 merge patch; returns a new object and leaves both inputs untouched. */
export function applyMergePatch(original: JsonObject, patch: unknown): JsonObject {
  try {
    const doc = importObject(original);
    const p = importJson(patch, 'the merge patch');
    if (!isJsonObject(p)) {
      throw new PatchError('DKC_PATCH_INVALID', `a merge patch must be a JSON object, got ${jsonKind(p)}`);
    }
    return mergeInto(doc, p);
  } catch (err) {
    throw toPatchError(err);
  }
}

/** Merges patch into target (both already private copies; recursion is bounded by the patch depth). */
function mergeInto(target: JsonObject, patch: JsonObject): JsonObject {
  for (const key of Object.keys(patch)) {
    const pv = patch[key] as JsonValue;
    if (pv === null) {
      deleteOwn(target, key);
    } else if (isJsonObject(pv)) {
      const tv = getOwn(target, key);
      setOwn(target, key, mergeInto(isJsonObject(tv) ? tv : {}, pv));
    } else {
      setOwn(target, key, pv);
    }
  }
  return target;
}
