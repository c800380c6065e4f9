// The Warning event that makes a rejected config visible from anywhere: status.config.error keeps upstream's
// fixed strings ("see Kubelet log for details"), so the event carries the real cause — the decode or validation
// errors, or the crash loop — and names the ConfigMap's uid and resourceVersion, with what the node runs instead.
// An event message is capped (1 KiB here), so a long cause is cut on a character boundary. Pure.

import type { NodeConfigSource } from '../../api/types.js';
import type { FailureStage } from './configok.js';

export const REJECTED_REASON = 'KubeletConfigRejected';
/** Longest event message, in UTF-8 bytes. */
export const MAX_REJECTION_BYTES = 1024;

const STAGE_WORDS: Readonly<Record<FailureStage, string>> = {
  load: 'could not be loaded',
  parse: 'could not be decoded',
  validate: 'failed validation',
  crashloop: 'kept the agent from becoming healthy',
  policy: 'is denied by a NodeConfigPolicy',
};

const ELLIPSIS = '…';

/** `text` cut to at most `maxBytes` of UTF-8, ending in an ellipsis when cut. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const budget = maxBytes - Buffer.byteLength(ELLIPSIS, 'utf8');
  let out = '';
  let used = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (used + n > budget) break;
    out += ch;
    used += n;
  }
  return out + ELLIPSIS;
}

export interface Rejection {
  /** The assigned source, with the uid and resourceVersion of its checkpoint. */
  assigned: NodeConfigSource;
  stage: FailureStage | undefined;
  detail: string;
  /** What the node runs instead (`current`: the config it ran before, kept on). */
  runs: 'local' | 'last-known-good' | 'current';
}

/** The event's message: which ConfigMap, why, and what runs instead, at most MAX_REJECTION_BYTES. */
export function rejectionMessage(r: Rejection): string {
  const cm = r.assigned.configMap;
  const what = `ConfigMap ${cm?.namespace ?? ''}/${cm?.name ?? ''} (key ${cm?.kubeletConfigKey ?? ''}, UID: ${cm?.uid ?? ''}, ResourceVersion: ${cm?.resourceVersion ?? ''})`;
  const instead =
    r.runs === 'local'
      ? 'the local config'
      : r.runs === 'current'
        ? 'the config it already runs'
        : 'the last-known-good config';
  return truncateUtf8(
    `${what} ${STAGE_WORDS[r.stage ?? 'load']}; running ${instead}: ${r.detail}`,
    MAX_REJECTION_BYTES,
  );
}
