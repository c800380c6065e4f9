// The patch types an endpoint accepts, decided here once: a PATCH of any other type is refused with 415 naming these,
// and /openapi/v3 and /openapi/v2 list exactly these for the endpoint's patch operation, so that a client choosing its
// patch from the documents (kubectl apply asks whether a kind takes strategic merge patch) picks one that is accepted.
// As kube-apiserver: built-in kinds take strategic merge patch; custom kinds do not, their fields having no patch
// strategies. Both take server-side apply (application/apply-patch+yaml).

import { errors } from '../api/errors.js';
import { patchContentTypeOf, type PatchContentType } from './patch/index.js';

export type { PatchContentType } from './patch/index.js';

const MEDIA_TYPES: Readonly<Record<PatchContentType, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

const BUILT_IN: readonly PatchContentType[] = ['json', 'merge', 'strategic', 'apply'];
const CUSTOM: readonly PatchContentType[] = ['json', 'merge', 'apply'];

/** The patch types of a built-in kind's endpoints (custom = false) or a custom kind's (custom = true). */
export function acceptedPatchTypes(custom: boolean): readonly PatchContentType[] {
  return custom ? CUSTOM : BUILT_IN;
}

/** The patch media types of a `scale` subresource: a built-in kind's but server-side apply, which dkc does not serve there. */
export const SCALE_PATCH_MEDIA_TYPES: readonly string[] = BUILT_IN.filter((t) => t !== 'apply').map(
  (t) => MEDIA_TYPES[t],
);

/** The media types of acceptedPatchTypes, in the order kube-apiserver names them. */
export function acceptedPatchMediaTypes(custom: boolean): string[] {
  return acceptedPatchTypes(custom).map((t) => MEDIA_TYPES[t]);
}

/** The patch type a request's Content-Type names, if the endpoint accepts it; otherwise a 415 naming those it does. */
export function patchTypeOf(contentType: string | undefined, custom: boolean): PatchContentType {
  const type = patchContentTypeOf(contentType ?? '');
  if (type === undefined || !acceptedPatchTypes(custom).includes(type)) {
    throw errors.unsupportedMediaTypeFor(contentType ?? '', acceptedPatchMediaTypes(custom));
  }
  return type;
}
