// What dkc ui's server answers for a node's diff against its assigned ConfigMap (GET /ui/nodes/NAME/diff).

export interface DiffChange {
  path: string;
  /** The values as `dkc config diff` prints them; absent where the leaf is absent on that side. */
  running?: string;
  assigned?: string;
}

export interface NodeDiff {
  /** The sources' names as `dkc config diff` names them (`node/N`, `cm/NS/NAME:KEY`). */
  running: string;
  assigned?: string;
  changes: DiffChange[];
  /** Why there is nothing to compare (no ConfigMap assigned). */
  note?: string;
}
