// The shape of a generated per-minor table (kubelet-1.NN.ts, written by scripts/gen-kubelet-versions.mjs). Types
// only: the tables are plain data, and src/kubeletconfig/versions.ts is the code that applies them.

/** How a field's JSON value is read and written. */
export type TableKind =
  | 'bool'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'float64'
  | 'string'
  | 'duration'
  | 'strings'
  | 'int32s'
  | 'stringMap'
  | 'stringsMap'
  | 'boolMap'
  | 'quantityMap'
  | 'struct'
  | 'structList'
  | 'reservedMemory'
  | 'json';

/**
 * JSON path (`authentication.webhook.enabled`; `registerWithTaints[].key` for a list's items), Go field name, kind,
 * flags (`p` pointer, `a` written even when empty), Go type of a struct (for error paths), the minor that introduced
 * the field, and the default its doc comment states ('' when it states none).
 */
export type FieldRow = readonly [path: string, go: string, kind: TableKind, flags: string, goType: string, since: number, documentedDefault: string];

export type GateStage = 'Alpha' | 'Beta' | 'GA' | 'Deprecated';

/** Name, default, stage, locked to its default, where the fact came from. */
export type GateRow = readonly [name: string, enabledByDefault: boolean, stage: GateStage, locked: boolean, source: string];

export interface VersionTable {
  /** `1.NN`. */
  readonly version: string;
  readonly fields: readonly FieldRow[];
  readonly gates: readonly GateRow[];
}
