// The content hash `kubectl create configmap --append-hash` appends to a ConfigMap's name (kubectl's
// pkg/util/hash): sha256 over Go's json.Marshal of {kind, name, data[, immutable][, binaryData]}, whose first ten hex
// digits become the suffix with 0, 1, 3, a and e mapped to g, h, k, m and t (no vowels, so no words). Reproduced
// byte for byte, so a rendered ConfigMap is named as kubectl would name the same object. Pure.

import { createHash } from 'node:crypto';
import type { ConfigMap } from '../../api/types.js';

/** Go's encoding/json escapes these inside strings (HTML safety, and JavaScript's line terminators). */
const GO_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** Members in byte order of their keys, as Go marshals a map; the values are strings, booleans or string maps. */
function sorted(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort(compareUtf8)) out[k] = sorted((value as Record<string, unknown>)[k]);
  return out;
}

function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * JSON as Go's json.Marshal writes it for these values. JSON.stringify already agrees on \b \f \n \r \t and
 * \u00XX for other control characters (Go ≥ 1.22); what it leaves raw and Go escapes is replaced afterwards, which
 * is safe because outside strings the text holds none of those characters.
 */
export function goJSON(value: unknown): string {
  return JSON.stringify(sorted(value)).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]!);
}

function encodeHash(hex: string): string {
  const map: Readonly<Record<string, string>> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => map[c] ?? c).join('');
}

/** The ten-character suffix kubectl's --append-hash gives `cm` (named by its name before the suffix). */
export function configMapHash(cm: Pick<ConfigMap, 'metadata' | 'data' | 'binaryData' | 'immutable'>): string {
  const m: Record<string, unknown> = { kind: 'ConfigMap', name: cm.metadata.name ?? '', data: cm.data ?? null };
  if (cm.immutable !== undefined && cm.immutable !== null) m['immutable'] = cm.immutable;
  if (cm.binaryData !== undefined && Object.keys(cm.binaryData).length > 0) m['binaryData'] = cm.binaryData;
  return encodeHash(createHash('sha256').update(goJSON(m), 'utf8').digest('hex'));
}
