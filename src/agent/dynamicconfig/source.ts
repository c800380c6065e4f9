// The node's config source as a value: the NodeConfigSource the API carries in spec.configSource and
// status.config, how upstream names it in logs, events and metric labels, and the one place it is
// written to disk (a SerializedNodeConfigSource record under meta/). Pure: no I/O, so the checkpoint
// store, the boot decision, the status writer and the CLI all agree on every rendering.
//
// The record is written by hand rather than through a generic YAML library because it has to match,
// byte for byte, what the kubelet wrote (sigs.k8s.io/yaml over go-yaml v2): an operator diffing the
// store of a node that ran a real kubelet against ours must see no difference. Reading is lenient
// (unknown keys tolerated), as upstream's non-strict decoder is, so newer API fields never brick a node.
// The records we (and the kubelet) write are read by a small exact reader; the general YAML library is
// loaded only for anything else, because it costs tens of milliseconds on every agent start.

import { createRequire } from 'node:module';
import type { ConfigMapNodeConfigSource, NodeConfigSource, ObjectReference } from '../../api/types.js';
import { CodedError } from '../../util/errors.js';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain } from '../../api/validation/names.js';

export type { ConfigMapNodeConfigSource, NodeConfigSource } from '../../api/types.js';

/** A source as callers hold it: absent (nil) means the node's local config. */
export type MaybeSource = NodeConfigSource | null | undefined;

export const SourceErrorCodes = {
  /** A non-nil NodeConfigSource with no known subfield set (a newer API's source type, or `{}`). */
  AllNil: 'DKC_SOURCE_ALL_NIL',
  /** Metric labels were asked for a source with no known subfield. */
  Unrecognized: 'DKC_SOURCE_UNRECOGNIZED',
  /** A record that is not a readable SerializedNodeConfigSource (syntax, apiVersion/kind, field types). */
  Decode: 'DKC_SOURCE_DECODE',
  /** A record of another kind of the kubelet config group (e.g. a KubeletConfiguration). */
  WrongKind: 'DKC_SOURCE_WRONG_KIND',
  /** A configMapRef without name, namespace or uid. */
  PartialReference: 'DKC_SOURCE_PARTIAL_REFERENCE',
  /** A namespace or name that cannot be one segment of a request path: `.`, `..` or empty. */
  PathSegment: 'DKC_SOURCE_PATH_SEGMENT',
} as const;

export type SourceErrorCode = (typeof SourceErrorCodes)[keyof typeof SourceErrorCodes];

export class SourceError extends CodedError<SourceErrorCode> {
  override name = 'SourceError';
}

/** status.AllNilSubfieldsError, the reason upstream reports for a source with no known subfield. */
export const ALL_NIL_SUBFIELDS_ERROR =
  'invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil';

// Upstream appends the %#v rendering of the offending source; with only one known subfield, an all-nil
// source always prints the same way.
const ALL_NIL_DETAIL = `${ALL_NIL_SUBFIELDS_ERROR}, NodeConfigSource was: &v1.NodeConfigSource{ConfigMap:(*v1.ConfigMapNodeConfigSource)(nil)}`;

export const SERIALIZED_API_VERSION = 'kubelet.config.k8s.io/v1beta1';
export const SERIALIZED_KIND = 'SerializedNodeConfigSource';
const SCHEME_NAME = 'pkg/kubelet/apis/config/scheme/scheme.go:32';
// Kinds the kubelet's config scheme knows in v1beta1 besides ours: decoding one of them succeeds
// upstream and only the cast to SerializedNodeConfigSource fails, with a different message.
const OTHER_REGISTERED_KINDS = new Set(['KubeletConfiguration', 'CredentialProviderConfig']);

/** The ConfigMap reference of a non-nil source; upstream's NewRemoteConfigSource refuses all-nil ones. */
function configMapOf(src: NodeConfigSource): ConfigMapNodeConfigSource {
  if (!src.configMap) throw new SourceError(SourceErrorCodes.AllNil, ALL_NIL_DETAIL);
  return src.configMap;
}

/**
 * apiequality.Semantic.DeepEqual over two *NodeConfigSource: nil differs from non-nil, and an absent
 * string equals an empty one (Go has no absent strings; the JSON just omits empty uid/resourceVersion).
 */
export function sourcesEqual(a: MaybeSource, b: MaybeSource): boolean {
  if (a == null || b == null) return a == null && b == null;
  if (a.configMapRef != null || b.configMapRef != null)
    return refsEqual(a.configMapRef, b.configMapRef) && a.configMap == null && b.configMap == null;
  const x = a.configMap;
  const y = b.configMap;
  if (x == null || y == null) return x == null && y == null;
  return (
    (x.namespace ?? '') === (y.namespace ?? '') &&
    (x.name ?? '') === (y.name ?? '') &&
    (x.uid ?? '') === (y.uid ?? '') &&
    (x.resourceVersion ?? '') === (y.resourceVersion ?? '') &&
    (x.kubeletConfigKey ?? '') === (y.kubeletConfigKey ?? '')
  );
}

function refsEqual(x: ObjectReference | null | undefined, y: ObjectReference | null | undefined): boolean {
  if (x == null || y == null) return x == null && y == null;
  const keys = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const;
  return keys.every((k) => (x[k] ?? '') === (y[k] ?? ''));
}

/** The ConfigMap key a 1.8-alpha `configMapRef` source reads its payload from (there was no kubeletConfigKey). */
export const CONFIG_MAP_REF_KEY = 'kubelet';

/** status.FailSyncReasonPartialObjectReference (1.8): the kubelet's own check of a configMapRef. */
export const PARTIAL_OBJECT_REFERENCE = 'invalid ObjectReference, all of UID, Name, and Namespace must be specified';

/**
 * The ConfigMap a `configMapRef` names, as the `configMap` reference the rest of the machinery (checkpoints, records,
 * status, metrics) works with: same namespace and name, the pinned UID, the key `kubelet`. Once downloaded, a
 * configMapRef source is this reference with the downloaded ResourceVersion, so a node moved between the two forms
 * of the same ConfigMap does not restart.
 */
export function refAsConfigMap(ref: ObjectReference): ConfigMapNodeConfigSource {
  if (!ref.name || !ref.namespace || !ref.uid)
    throw new SourceError(SourceErrorCodes.PartialReference, PARTIAL_OBJECT_REFERENCE);
  return { namespace: ref.namespace, name: ref.name, uid: ref.uid, kubeletConfigKey: CONFIG_MAP_REF_KEY };
}

/** status.FailSyncReasonUIDMismatchFmt (1.8): the ConfigMap found under the reference's name is another object. */
export function uidMismatch(want: string, got: string): string {
  return `invalid ObjectReference, UID ${JSON.stringify(want)} does not match UID of downloaded ConfigMap ${JSON.stringify(got)}`;
}

/** A copy that shares nothing with the input, so a caller's later mutation cannot reach a stored value. */
export function cloneSource(src: NodeConfigSource): NodeConfigSource {
  if (!src.configMap) return {};
  const { namespace, name, uid, resourceVersion, kubeletConfigKey } = src.configMap;
  const cm: ConfigMapNodeConfigSource = { namespace, name, kubeletConfigKey };
  if (uid) cm.uid = uid;
  if (resourceVersion) cm.resourceVersion = resourceVersion;
  return { configMap: cm };
}

/** RemoteConfigSource.APIPath(): `/api/v1/namespaces/<NS>/configmaps/<NAME>`. */
export function apiPath(src: NodeConfigSource): string {
  const cm = configMapOf(src);
  return `/api/v1/namespaces/${cm.namespace}/configmaps/${cm.name}`;
}

/** The ConfigMap's URL for a request: apiPath() with each segment encoded (apiPath() itself is a display string). */
export function requestPath(ref: ConfigMapNodeConfigSource): string {
  return `${configMapsPath(ref.namespace)}/${pathSegment('resource name', ref.name)}`;
}

/** The ConfigMap collection of a namespace, refusing a namespace that is no path segment (pathSegment). */
export function configMapsPath(namespace: string): string {
  return `/api/v1/namespaces/${pathSegment('namespace', namespace)}/configmaps`;
}

/**
 * One segment of a request path. Percent-encoding makes `/` and `%` safe, but not `.` and `..`: a URL parser resolves
 * them (and `%2e%2e`, so encoding them would not help), and `namespaces/../configmaps/x` would name another path. So
 * those, and an empty segment, are refused, as client-go's IsValidPathSegmentName refuses them. A reference the API
 * server validated never trips this; a NodeConfig on a server whose CRD has no patterns might.
 */
export function pathSegment(what: 'namespace' | 'resource name', value: string): string {
  if (value === '' || value === '.' || value === '..')
    throw new SourceError(
      SourceErrorCodes.PathSegment,
      `invalid ${what} ${JSON.stringify(value)}: [${value === '' ? 'may not be empty' : `may not be '${value}'`}]`,
    );
  return encodeURIComponent(value);
}

/** fields.EscapeValue: a value inside a field selector (`metadata.name=<value>`). */
export function fieldSelectorValue(v: string): string {
  return v.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * What the API server would refuse in a ConfigMap reference (namespace a DNS label, name a DNS subdomain, the key a
 * ConfigMap key) plus what the checkpoint layout needs of UID and ResourceVersion (one path component each). A record
 * read back from disk is checked with this before any of it becomes part of a path: disk is not the API server.
 */
export function sourceNameErrors(src: NodeConfigSource): string[] {
  const cm = src.configMap;
  if (!cm) return [ALL_NIL_SUBFIELDS_ERROR];
  const out: string[] = [];
  const field = (name: string, value: string, errs: string[]) => {
    for (const e of errs) out.push(`${name} ${JSON.stringify(value)}: ${e}`);
  };
  field('namespace', cm.namespace ?? '', isDNS1123Label(cm.namespace ?? ''));
  field('name', cm.name ?? '', isDNS1123Subdomain(cm.name ?? ''));
  field('kubeletConfigKey', cm.kubeletConfigKey ?? '', isConfigMapKey(cm.kubeletConfigKey ?? ''));
  for (const [name, value] of [
    ['uid', cm.uid],
    ['resourceVersion', cm.resourceVersion],
  ] as const) {
    if (
      value !== undefined &&
      (value === '.' || value === '..' || value.includes('/') || value.includes('\0') || value.length > 255)
    ) {
      field(name, value, ['must be a single path component']);
    }
  }
  return out;
}

/**
 * The `<APIPath>, UID: <uid>, ResourceVersion: <rv>` phrase upstream uses in its log lines and store
 * errors (`no checkpoint for source …`, `updated last-known-good config to …`).
 */
export function describeSource(src: NodeConfigSource): string {
  const cm = configMapOf(src);
  return `${apiPath(src)}, UID: ${cm.uid ?? ''}, ResourceVersion: ${cm.resourceVersion ?? ''}`;
}

export const LOCAL_EVENT_MESSAGE = 'Kubelet restarting to use local config';

/**
 * The KubeletConfigChanged event message. `uid` and `resourceVersion` default to the source's own, which
 * after a download are the values just fetched (what upstream prints).
 */
export function restartMessage(src: MaybeSource, uid?: string, resourceVersion?: string): string {
  if (src == null) return LOCAL_EVENT_MESSAGE;
  const cm = configMapOf(src);
  return `Kubelet restarting to use ${apiPath(src)}, UID: ${uid ?? cm.uid ?? ''}, ResourceVersion: ${resourceVersion ?? cm.resourceVersion ?? ''}, KubeletConfigKey: ${cm.kubeletConfigKey}`;
}

// A type alias rather than an interface so it stays assignable to a metrics library's Record<string, string>.
export type NodeConfigMetricLabels = {
  node_config_source: string;
  node_config_uid: string;
  node_config_resource_version: string;
  node_config_kubelet_key: string;
};

/** Label values of the kubelet_node_config_{assigned,active,last_known_good} series for a source. */
export function metricLabels(src: MaybeSource): NodeConfigMetricLabels {
  if (src == null) {
    return {
      node_config_source: 'local',
      node_config_uid: '',
      node_config_resource_version: '',
      node_config_kubelet_key: '',
    };
  }
  if (!src.configMap) {
    throw new SourceError(
      SourceErrorCodes.Unrecognized,
      'unrecognized config source type, all source subfields were nil',
    );
  }
  const cm = src.configMap;
  return {
    node_config_source: apiPath(src),
    node_config_uid: cm.uid ?? '',
    node_config_resource_version: cm.resourceVersion ?? '',
    node_config_kubelet_key: cm.kubeletConfigKey,
  };
}

// ---------------------------------------------------------------------------------------------------
// Writing: go-yaml v2's choice of scalar style, for the strings a record can hold.

// go-yaml v2 resolves these plain scalars to bool, null or float; a string spelled like one is quoted.
const RESOLVE_MAP = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  'on',
  'On',
  'ON',
  'off',
  'Off',
  'OFF',
  '~',
  'null',
  'Null',
  'NULL',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const GO_INT_BASE0 = /^([-+]?)(0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/;
const TS_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const TS_TIME = /^(\d{4})-(\d{1,2})-(\d{1,2})([Tt ])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(Z|[-+]\d{2}:\d{2})?$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) succeeding, after go-yaml dropped underscores. */
function isGoInt(s: string): boolean {
  const m = GO_INT_BASE0.exec(s);
  if (!m) return false;
  const digits = m[2]!;
  let v: bigint;
  if (/^0[bBoOxX]/.test(digits)) v = BigInt('0' + digits[1]!.toLowerCase() + digits.slice(2));
  else if (digits.length > 1 && digits[0] === '0') v = BigInt('0o' + digits.slice(1));
  else v = BigInt(digits);
  if (m[1] === '-') return -v >= INT64_MIN;
  if (m[1] === '+') return v <= INT64_MAX;
  return v <= UINT64_MAX;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** go-yaml v2's parseTimestamp: one of its four layouts, with time.Parse's range checks. */
function isTimestamp(s: string): boolean {
  const m = TS_DATE.exec(s) ?? TS_TIME.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return false;
  if (m.length === 4) return true;
  // The space-separated layout carries no zone; the T layouts require one.
  if ((m[4] === ' ') !== (m[8] === undefined)) return false;
  return Number(m[5]) <= 23 && Number(m[6]) <= 59 && Number(m[7]) <= 59;
}

/** Whether go-yaml v2's resolve() would read `s`, written plain, as anything but a string. */
function resolvesToNonString(s: string): boolean {
  if (s === '') return true;
  const c = s[0]!;
  if (RESOLVE_MAP.has(s)) return true;
  if (c === '.') return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s) && Number.isFinite(Number(s));
  if (!'+-0123456789'.includes(c)) return false;
  if (isTimestamp(s)) return true;
  const plain = s.replace(/_/g, '');
  if (isGoInt(plain)) return true;
  if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return true;
  if (/^0b[-+]?[01]+$/.test(plain)) return isGoInt(plain.slice(2).replace(/^([-+]?)/, '$10b'));
  return false;
}

/** go-yaml's is_printable minus line breaks: what may appear raw outside a double-quoted scalar. */
function isPlainSafeChar(cp: number): boolean {
  if (cp >= 0x20 && cp <= 0x7e) return true;
  if (cp === 0x85 || cp === 0x2028 || cp === 0x2029 || cp === 0xfeff) return false;
  return (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
}

/** go-yaml's analysis of whether a scalar may be written plain in block context. */
function plainAllowed(s: string): boolean {
  if (s.startsWith('---') || s.startsWith('...')) return false;
  if (s.startsWith(' ') || s.endsWith(' ')) return false;
  const blankAt = (i: number) => i >= s.length || s[i] === ' ';
  const first = s[0]!;
  if ('#,[]{}&*!|>\'"%@`'.includes(first)) return false;
  if ((first === '?' || first === ':' || first === '-') && blankAt(1)) return false;
  for (let i = 1; i < s.length; i++) {
    if (s[i] === ':' && blankAt(i + 1)) return false;
    if (s[i] === '#' && s[i - 1] === ' ') return false;
  }
  return true;
}

const DQ_ESCAPES: Record<number, string> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0x2028: 'L',
  0x2029: 'P',
};

function doubleQuoted(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const named = DQ_ESCAPES[cp];
    if (named !== undefined) out += '\\' + named;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\uFFFD';
    else if (isPlainSafeChar(cp)) out += ch;
    else if (cp <= 0xff) out += '\\x' + cp.toString(16).toUpperCase().padStart(2, '0');
    else if (cp <= 0xffff) out += '\\u' + cp.toString(16).toUpperCase().padStart(4, '0');
    else out += '\\U' + cp.toString(16).toUpperCase().padStart(8, '0');
  }
  return out + '"';
}

/**
 * A string value as go-yaml v2 emits it: plain when a reader would take it back as the same string,
 * double-quoted when a plain reading would change its type (`"1"`, `"true"`, `"2020-01-02"`), single-quoted
 * when only YAML syntax is in the way (a leading `#`, `: ` inside). go-yaml folds quoted scalars with
 * spaces past column 80 and writes multi-line strings as literal blocks; names, keys, UIDs and resource
 * versions never contain spaces or line breaks, so those layouts are not reproduced (the output stays
 * valid YAML that reads back to the same string).
 */
function yamlString(s: string): string {
  for (const ch of s) if (!isPlainSafeChar(ch.codePointAt(0)!)) return doubleQuoted(s);
  if (resolvesToNonString(s) || BASE60_FLOAT.test(s)) return doubleQuoted(s);
  if (!plainAllowed(s)) return `'${s.replace(/'/g, "''")}'`;
  return s;
}

/**
 * The SerializedNodeConfigSource record for a source, exactly as the kubelet writes meta/assigned and
 * meta/last-known-good: keys sorted, empty uid/resourceVersion omitted (omitempty), the other fields
 * always present.
 */
export function serializeSource(src: NodeConfigSource): string {
  const cm = configMapOf(src);
  const lines = [
    `apiVersion: ${SERIALIZED_API_VERSION}`,
    `kind: ${SERIALIZED_KIND}`,
    'source:',
    '  configMap:',
    `    kubeletConfigKey: ${yamlString(cm.kubeletConfigKey ?? '')}`,
    `    name: ${yamlString(cm.name ?? '')}`,
    `    namespace: ${yamlString(cm.namespace ?? '')}`,
  ];
  if (cm.resourceVersion) lines.push(`    resourceVersion: ${yamlString(cm.resourceVersion)}`);
  if (cm.uid) lines.push(`    uid: ${yamlString(cm.uid)}`);
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------------
// Reading.

type YamlLib = typeof import('yaml');
let yamlLib: YamlLib | undefined;
function loadYaml(): YamlLib {
  return (yamlLib ??= createRequire(import.meta.url)('yaml') as YamlLib);
}

const CANONICAL_HEAD = `apiVersion: ${SERIALIZED_API_VERSION}\nkind: ${SERIALIZED_KIND}\nsource:\n  configMap:\n`;
const CANONICAL_FIELD = /^ {4}(kubeletConfigKey|name|namespace|resourceVersion|uid): (.*)$/;

function allPlainSafe(s: string): boolean {
  for (const ch of s) if (!isPlainSafeChar(ch.codePointAt(0)!)) return false;
  return true;
}

/** One scalar as serializeSource writes it; undefined for any other spelling (left to the YAML library). */
function readCanonicalScalar(raw: string): string | undefined {
  if (raw.startsWith('"')) {
    const m = /^"([^"\\]*)"$/.exec(raw);
    return m && allPlainSafe(m[1]!) ? m[1] : undefined;
  }
  if (raw.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'$/.exec(raw);
    return m && allPlainSafe(m[1]!) ? m[1]!.replace(/''/g, "'") : undefined;
  }
  // A plain scalar reads back as this very string exactly when it is what we would write plain.
  return raw !== '' && yamlString(raw) === raw ? raw : undefined;
}

/** The fast path: a record in exactly the layout serializeSource produces, else undefined. */
function parseCanonical(text: string): NodeConfigSource | undefined {
  if (!text.startsWith(CANONICAL_HEAD) || !text.endsWith('\n')) return undefined;
  const fields = new Map<string, string>();
  for (const line of text.slice(CANONICAL_HEAD.length, -1).split('\n')) {
    const m = CANONICAL_FIELD.exec(line);
    if (!m || fields.has(m[1]!)) return undefined;
    const v = readCanonicalScalar(m[2]!);
    if (v === undefined) return undefined;
    fields.set(m[1]!, v);
  }
  const cm: ConfigMapNodeConfigSource = {
    namespace: fields.get('namespace') ?? '',
    name: fields.get('name') ?? '',
    kubeletConfigKey: fields.get('kubeletConfigKey') ?? '',
  };
  const uid = fields.get('uid');
  const resourceVersion = fields.get('resourceVersion');
  if (uid) cm.uid = uid;
  if (resourceVersion) cm.resourceVersion = resourceVersion;
  return { configMap: cm };
}

function decodeError(detail: string, cause?: unknown): SourceError {
  return new SourceError(
    SourceErrorCodes.Decode,
    `failed to decode, error: ${detail}`,
    cause === undefined ? undefined : { cause },
  );
}

function jsonKind(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** A string field the way encoding/json fills a Go string: null or absent leave it empty. */
function stringField(obj: Record<string, unknown>, key: string, path: string, goType = 'string'): string {
  const v = obj[key];
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  throw decodeError(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${key} of type ${goType}`);
}

/**
 * Reads a SerializedNodeConfigSource record. Zero-length text is the nil source (local config); a record
 * whose source has no known subfield is an error, as upstream refuses to act on a source it cannot
 * understand. Unknown keys anywhere are ignored.
 */
export function parseSource(text: string): NodeConfigSource | undefined {
  if (text.length === 0) return undefined;
  const canonical = parseCanonical(text);
  if (canonical) return canonical;
  // go-yaml v2 reads YAML 1.1 (so `y` is a bool there too) and lets a repeated key win silently.
  const doc = loadYaml().parseDocument(text, { version: '1.1', uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0)
    throw decodeError(`error converting YAML to JSON: yaml: ${doc.errors[0]!.message}`, doc.errors[0]);
  const top: unknown = doc.toJS({ maxAliasCount: 100 });
  const head = isRecord(top) ? top : {};
  const kind = typeof head['kind'] === 'string' ? head['kind'] : '';
  const apiVersion = typeof head['apiVersion'] === 'string' ? head['apiVersion'] : '';
  if (kind === '') throw decodeError(`Object 'Kind' is missing in '${text}'`);
  const slash = apiVersion.indexOf('/');
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  if (version === '') throw decodeError(`Object 'apiVersion' is missing in '${text}'`);
  if (apiVersion !== SERIALIZED_API_VERSION || (kind !== SERIALIZED_KIND && !OTHER_REGISTERED_KINDS.has(kind))) {
    throw decodeError(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(SCHEME_NAME)}`,
    );
  }
  if (kind !== SERIALIZED_KIND) {
    throw new SourceError(
      SourceErrorCodes.WrongKind,
      'failed to cast decoded remote config source to *k8s.io/kubernetes/pkg/kubelet/apis/kubeletconfig.SerializedNodeConfigSource',
    );
  }
  const source = head['source'];
  if (source === undefined || source === null) throw new SourceError(SourceErrorCodes.AllNil, ALL_NIL_DETAIL);
  if (!isRecord(source)) {
    throw decodeError(
      `json: cannot unmarshal ${jsonKind(source)} into Go struct field SerializedNodeConfigSource.source of type v1.NodeConfigSource`,
    );
  }
  const cmRaw = source['configMap'];
  if (cmRaw === undefined || cmRaw === null) throw new SourceError(SourceErrorCodes.AllNil, ALL_NIL_DETAIL);
  if (!isRecord(cmRaw)) {
    throw decodeError(
      `json: cannot unmarshal ${jsonKind(cmRaw)} into Go struct field NodeConfigSource.source.configMap of type v1.ConfigMapNodeConfigSource`,
    );
  }
  const path = 'ConfigMapNodeConfigSource.source.configMap';
  const cm: ConfigMapNodeConfigSource = {
    namespace: stringField(cmRaw, 'namespace', path),
    name: stringField(cmRaw, 'name', path),
    kubeletConfigKey: stringField(cmRaw, 'kubeletConfigKey', path),
  };
  const uid = stringField(cmRaw, 'uid', path, 'types.UID');
  const resourceVersion = stringField(cmRaw, 'resourceVersion', path);
  if (uid) cm.uid = uid;
  if (resourceVersion) cm.resourceVersion = resourceVersion;
  return { configMap: cm };
}
