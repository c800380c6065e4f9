// The daemon's mark on the kubelet file it writes: a header of YAML comments (the kubelet ignores them) naming the
// source and the digest of the payload below it. With it the file says by itself what it is, so the daemon knows its
// own file when its records are gone — a wiped or lost --dynamic-config-dir: it never keeps its own file as the
// node's "original" (a later reset would "restore" it for ever), it reports the config the kubelet really runs, and
// it rebuilds its records from the file. The digest tells a whole file from one edited by another hand. Pure.

import { createHash } from 'node:crypto';
import type { NodeConfigSource } from '../api/types.js';
import { describeSource } from '../agent/dynamicconfig/source.js';

/** The header's first line: what marks a file as the daemon's. */
export const HEADER_MARK = '# Written by dkc node-daemon';
const SOURCE_LINE = '# dkc.io/source: ';
const DIGEST_LINE = '# dkc.io/payload-digest: ';

const payloadDigest = (payload: Uint8Array): string => `sha256:${createHash('sha256').update(payload).digest('hex')}`;

/** The content of the daemon's kubelet file for `source`: the header, then the payload unchanged. */
export function withHeader(source: NodeConfigSource, payload: Uint8Array): Uint8Array {
  const cm = source.configMap!;
  const ref = {
    namespace: cm.namespace,
    name: cm.name,
    uid: cm.uid ?? '',
    resourceVersion: cm.resourceVersion ?? '',
    kubeletConfigKey: cm.kubeletConfigKey,
  };
  const header = [
    `${HEADER_MARK} from ${describeSource(source)}, key ${JSON.stringify(cm.kubeletConfigKey)}.`,
    '# Edit the ConfigMap, not this file: the daemon puts its own file back.',
    `${SOURCE_LINE}${JSON.stringify(ref)}`,
    `${DIGEST_LINE}${payloadDigest(payload)}`,
    '',
  ].join('\n');
  return Buffer.concat([Buffer.from(header, 'utf8'), payload]);
}

export interface OwnFile {
  source: NodeConfigSource;
  /** The bytes below the header. */
  payload: Uint8Array;
  /** The payload is the one the header names (no other hand changed it). */
  intact: boolean;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** The daemon's header in `content`, or undefined when the file is not the daemon's (or its header is damaged). */
export function readHeader(content: Uint8Array | undefined): OwnFile | undefined {
  if (!content) return undefined;
  const buf = Buffer.from(content);
  if (!buf.subarray(0, HEADER_MARK.length).equals(Buffer.from(HEADER_MARK))) return undefined;
  let at = 0;
  let ref: Record<string, unknown> | undefined;
  let digest: string | undefined;
  // The header is four lines; a bound keeps a damaged file from being read as one long header.
  for (let line = 0; line < 4; line++) {
    const end = buf.indexOf(0x0a, at);
    if (end < 0) return undefined;
    const text = buf.subarray(at, end).toString('utf8');
    at = end + 1;
    if (text.startsWith(SOURCE_LINE)) {
      try {
        ref = JSON.parse(text.slice(SOURCE_LINE.length)) as Record<string, unknown>;
      } catch {
        return undefined;
      }
    } else if (text.startsWith(DIGEST_LINE)) digest = text.slice(DIGEST_LINE.length);
  }
  if (!ref || !digest || ![ref['namespace'], ref['name'], ref['kubeletConfigKey']].every(isString)) return undefined;
  const configMap = {
    namespace: ref['namespace'] as string,
    name: ref['name'] as string,
    kubeletConfigKey: ref['kubeletConfigKey'] as string,
    ...(isString(ref['uid']) ? { uid: ref['uid'] } : {}),
    ...(isString(ref['resourceVersion']) ? { resourceVersion: ref['resourceVersion'] } : {}),
  };
  const payload = buf.subarray(at);
  return { source: { configMap }, payload, intact: payloadDigest(payload) === digest };
}

export type LeftoverPlan =
  /** Nothing to do: the daemon's records are there, or the file is not the daemon's. */
  | { kind: 'none' }
  /**
   * The records are gone but the file is the daemon's, whole: keep the node's original as "no file" (drop-in mode:
   * the drop-in is the daemon's own) and rebuild the records from the file, so the kubelet is not touched.
   */
  | { kind: 'rebuild'; own: OwnFile; originalAbsent: boolean }
  /** The records are gone and the file is the daemon's but edited: it is not the node's original either. */
  | { kind: 'edited'; own: OwnFile; originalAbsent: boolean };

/**
 * What a starting daemon does about a kubelet file of its own that its records do not know (they were wiped).
 * In replace mode the node's own --config file is lost with the records: nothing can bring it back, and the daemon
 * must not pretend otherwise (no original is recorded; a reset keeps the file and says so).
 */
export function planLeftover(input: {
  mode: 'dropin' | 'replace';
  hasAssigned: boolean;
  hasOriginal: boolean;
  current: Uint8Array | undefined;
}): LeftoverPlan {
  if (input.hasAssigned || input.hasOriginal) return { kind: 'none' };
  const own = readHeader(input.current);
  if (!own) return { kind: 'none' };
  const originalAbsent = input.mode === 'dropin';
  return own.intact && own.source.configMap?.uid && own.source.configMap.resourceVersion
    ? { kind: 'rebuild', own, originalAbsent }
    : { kind: 'edited', own, originalAbsent };
}
