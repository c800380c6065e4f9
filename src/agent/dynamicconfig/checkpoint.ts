// The node's checkpoint store: what the agent downloaded, what it was told to run, and what it falls
// back to, kept under `<dynamic-config-dir>/store` in upstream's exact layout so an operator's tooling and
// habits carry over:
//
//   store/meta/assigned            SerializedNodeConfigSource YAML, or empty for the local config
//   store/meta/last-known-good     same format
//   store/checkpoints/<UID>/<RV>/  one file per key of the ConfigMap's data
//
// Every write is atomic (a reader sees the old state or the new one, also after a crash at any instant);
// checkpoints are written once and never rewritten. Error texts are upstream's, so `Node.status.config`
// and the logs read the same as a kubelet's.

import { copyFile, mkdir, mkdtemp, open, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { nodeFs, writeFileAtomic, type AtomicFileHandle, type AtomicFs } from '../../util/atomicfile.js';
import { StartLedger, START_RECORD_FILE } from './crashloop.js';
import {
  apiPath,
  describeSource,
  parseSource,
  serializeSource,
  sourceNameErrors,
  type MaybeSource,
  type NodeConfigSource,
} from './source.js';
import { AsyncMutex } from './mutex.js';
import { isConfigMapKey } from '../../api/validation/names.js';
import { CodedError, errorMessage } from '../../util/errors.js';
import { goQuote } from '../../gotext/quote.js';
import { errnoCode, goBase, goErrnoText, goModeString, goPathErrorText } from '../../gotext/os.js';

export const STORE_DIR = 'store';
export const META_DIR = 'meta';
export const ASSIGNED_FILE = 'assigned';
export const LAST_KNOWN_GOOD_FILE = 'last-known-good';
export const CHECKPOINTS_DIR = 'checkpoints';

const DIR_MODE = 0o755;
const RECORD_MODE = 0o644;
// Checkpoint files are created as Go's os.Create does (0666 less the umask).
const CHECKPOINT_FILE_MODE = 0o666;
// Upstream's temp-dir prefix; also what the initialize() sweep recognises as a crashed save.
const TMP_TAG = 'tmp_';
// util/atomicfile's temp files are dot-prefixed and carry this marker.
const ATOMIC_TEMP_FILE = /^\..+\.tmp-/;

export const CheckpointErrorCodes = {
  /** A source without UID or ResourceVersion where one is needed to name a checkpoint. */
  AmbiguousSource: 'DKC_CHECKPOINT_AMBIGUOUS_SOURCE',
  /** A UID or ResourceVersion that cannot be used as one path component (`/`, `.`, `..`, NUL). */
  InvalidPath: 'DKC_CHECKPOINT_INVALID_PATH',
  /** A data key that cannot be a file name in a checkpoint. */
  InvalidFileKey: 'DKC_CHECKPOINT_INVALID_FILE_KEY',
  /** Something other than a directory where the store expects one. */
  NotDirectory: 'DKC_CHECKPOINT_NOT_DIRECTORY',
  /** Something other than a regular file where the store expects a record. */
  NotRegularFile: 'DKC_CHECKPOINT_NOT_REGULAR_FILE',
  /** No checkpoint directory for the source's UID and ResourceVersion. */
  NotFound: 'DKC_CHECKPOINT_NOT_FOUND',
  /** The kubelet config file in the checkpoint could not be read. */
  Read: 'DKC_CHECKPOINT_READ',
  /** The kubelet config file in the checkpoint is zero bytes long. */
  Empty: 'DKC_CHECKPOINT_EMPTY',
  /** meta/assigned or meta/last-known-good could not be read or decoded. */
  Record: 'DKC_CHECKPOINT_RECORD',
  /** reset() could not clear a record. */
  Reset: 'DKC_CHECKPOINT_RESET',
  /** Any other filesystem failure. */
  IO: 'DKC_CHECKPOINT_IO',
} as const;

export type CheckpointErrorCode = (typeof CheckpointErrorCodes)[keyof typeof CheckpointErrorCodes];

/** The meta records, for a caller that holds the store's lock (CheckpointStore.exclusive). */
export interface LockedRecords {
  assigned(): Promise<NodeConfigSource | undefined>;
  lastKnownGood(): Promise<NodeConfigSource | undefined>;
  setAssigned(src: MaybeSource): Promise<void>;
  setLastKnownGood(src: MaybeSource): Promise<void>;
}

export class CheckpointError extends CodedError<CheckpointErrorCode> {
  override name = 'CheckpointError';
}

/**
 * The files a checkpoint keeps of a ConfigMap: the kubelet's key only (what load() reads). The ConfigMap's other keys
 * are not the node's to store: an editor of an assigned ConfigMap would fill the disk of every node it is assigned to.
 */
export function kubeletFiles(
  data: Record<string, string> | undefined,
  kubeletConfigKey: string,
): Record<string, string> {
  const value = data?.[kubeletConfigKey];
  return value === undefined ? {} : { [kubeletConfigKey]: value };
}

/** What a successful download hands to save(): the ConfigMap's identity and the files to keep (kubeletFiles). */
export interface CheckpointPayload {
  uid: string;
  resourceVersion: string;
  files: Record<string, string>;
}

/** What readRecordOrQuarantine found: the source, or why the record was treated as absent. */
export interface RecordReading {
  source: NodeConfigSource | undefined;
  /** The read or decode failure that made the record count as absent. */
  error?: CheckpointError;
  /** Where the unreadable record was copied to. */
  keptAs?: string;
  /** Why the copy or the clearing failed (a read-only meta/). */
  clearError?: Error;
}

export interface LoadedCheckpoint {
  /** The kubelet config file's content. */
  bytes: Uint8Array;
  /** The checkpoint directory; relative paths in the config resolve against it. */
  dir: string;
  /** The kubelet config file's path. */
  path: string;
}

// ---------------------------------------------------------------------------------------------------
// Go's renderings of filesystem failures, since upstream's messages embed them.

/** os.PathError's text for a failed filesystem call; a CheckpointError already says what failed. */
function goPathError(e: unknown, path: string, op: string): string {
  return e instanceof CheckpointError ? e.message : goPathErrorText(e, path, op);
}

function ioError(e: unknown, path: string, op: string): CheckpointError {
  if (e instanceof CheckpointError) return e;
  return new CheckpointError(CheckpointErrorCodes.IO, goPathError(e, path, op), { cause: e });
}

async function statOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

/** Whether anything is at `path` (a file of a checkpoint). */
async function fileExists(path: string): Promise<boolean> {
  try {
    return (await statOrUndefined(path)) !== undefined;
  } catch (e) {
    throw ioError(e, path, 'stat');
  }
}

/** utilfiles.DirExists: true for a directory, false when nothing is there, an error for anything else. */
async function dirExists(path: string): Promise<boolean> {
  let st: Stats | undefined;
  try {
    st = await statOrUndefined(path);
  } catch (e) {
    throw ioError(e, path, 'stat');
  }
  if (st === undefined) return false;
  if (st.isDirectory()) return true;
  throw new CheckpointError(
    CheckpointErrorCodes.NotDirectory,
    `expected dir at ${goQuote(path)}, but mode is ${goQuote(goModeString(st.mode))}`,
  );
}

/** Makes a directory's entries (a rename, a new child) durable. */
async function fsyncDir(dir: string, fs: AtomicFs): Promise<void> {
  try {
    const fh = await fs.open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw ioError(e, dir, 'sync');
  }
}

/** Creates `path` (and parents) unless a directory is already there; true if it had to be created. */
async function ensureDir(path: string): Promise<boolean> {
  if (await dirExists(path)) return false;
  try {
    await mkdir(path, { recursive: true, mode: DIR_MODE });
  } catch (e) {
    throw ioError(e, path, 'mkdir');
  }
  return true;
}

/** utilfiles.EnsureFile: an existing regular file is left alone; a missing one is created empty. */
async function ensureFile(path: string): Promise<void> {
  let st: Stats | undefined;
  try {
    st = await statOrUndefined(path);
  } catch (e) {
    throw ioError(e, path, 'stat');
  }
  if (st !== undefined) {
    if (st.isFile()) return;
    throw new CheckpointError(
      CheckpointErrorCodes.NotRegularFile,
      `expected regular file at ${goQuote(path)}, but mode is ${goQuote(goModeString(st.mode))}`,
    );
  }
  try {
    const fh = await open(path, 'wx', RECORD_MODE);
    await fh.close();
  } catch (e) {
    // Someone created it between the stat and the open: it exists, which is all we want.
    if (errnoCode(e) !== 'EEXIST') throw ioError(e, path, 'open');
  }
}

/** utilfiles.WriteTempDir's checks on data keys, in upstream's order and words. */
function validateFileKey(name: string): void {
  const fail = (msg: string) => new CheckpointError(CheckpointErrorCodes.InvalidFileKey, msg);
  if (name === '') throw fail(`invalid file key: must not be empty: ${goQuote(name)}`);
  if (name !== goBase(name)) throw fail(`invalid file key ${goQuote(name)}, only base names are allowed`);
  if (name === '.' || name === '..') throw fail(`invalid file key, may not be '.' or '..'`);
  if (Buffer.byteLength(name, 'utf8') > 255)
    throw fail(`invalid file key ${goQuote(name)}, must be less than 255 characters`);
}

/** A UID or ResourceVersion must stay one directory level: the API never produces others, but disk can. */
function checkComponent(value: string): void {
  if (value === '.' || value === '..' || value.includes('/') || value.includes('\0')) {
    throw new CheckpointError(CheckpointErrorCodes.InvalidPath, `invalid checkpoint path component ${goQuote(value)}`);
  }
}

// ---------------------------------------------------------------------------------------------------

export class CheckpointStore {
  /** `<dynamic-config-dir>/store`. */
  readonly dir: string;
  readonly metaDir: string;
  readonly checkpointsDir: string;
  readonly assignedPath: string;
  readonly lastKnownGoodPath: string;
  private readonly ledger: StartLedger;
  /** Serialises every mutation of the store (see mutex.ts); exclusive() lets a caller's read-decide-write join it. */
  readonly lock = new AsyncMutex();

  /** `dynamicConfigDir` is the --dynamic-config-dir value; a relative one resolves against the cwd, as filepath.Abs does. */
  constructor(
    dynamicConfigDir: string,
    private readonly fs: AtomicFs = nodeFs,
  ) {
    this.dir = join(resolve(dynamicConfigDir), STORE_DIR);
    this.metaDir = join(this.dir, META_DIR);
    this.checkpointsDir = join(this.dir, CHECKPOINTS_DIR);
    this.assignedPath = join(this.metaDir, ASSIGNED_FILE);
    this.lastKnownGoodPath = join(this.metaDir, LAST_KNOWN_GOOD_FILE);
    this.ledger = new StartLedger(join(this.metaDir, START_RECORD_FILE));
  }

  /** `checkpoints/<uid>/<resourceVersion>`. */
  checkpointPath(uid: string, resourceVersion: string): string {
    checkComponent(uid);
    checkComponent(resourceVersion);
    return join(this.checkpointsDir, uid, resourceVersion);
  }

  /**
   * Creates whatever of the layout is missing, leaving existing content untouched, then removes the
   * temp files and directories a crash mid-write can leave behind (nothing reads them, but they would
   * accumulate over many crashes).
   */
  initialize(): Promise<void> {
    return this.lock.run(() => this.initializeLocked());
  }

  private async initializeLocked(): Promise<void> {
    await ensureDir(this.dir);
    await ensureDir(this.metaDir);
    await ensureFile(this.assignedPath);
    await ensureFile(this.lastKnownGoodPath);
    await ensureDir(this.checkpointsDir);
    await this.sweepTemporaries();
  }

  private async sweepTemporaries(): Promise<void> {
    const metaEntries = await readdir(this.metaDir).catch((e: unknown) => {
      throw ioError(e, this.metaDir, 'open');
    });
    await Promise.all(
      metaEntries
        .filter((n) => ATOMIC_TEMP_FILE.test(n))
        .map((n) => unlink(join(this.metaDir, n)).catch(() => undefined)),
    );
    const uids = await readdir(this.checkpointsDir, { withFileTypes: true }).catch((e: unknown) => {
      throw ioError(e, this.checkpointsDir, 'open');
    });
    await Promise.all(
      uids
        .filter((d) => d.isDirectory())
        .map(async (d) => {
          const uidDir = join(this.checkpointsDir, d.name);
          const entries = await readdir(uidDir).catch(() => [] as string[]);
          await Promise.all(
            entries
              .filter((n) => n.startsWith(TMP_TAG))
              .map((n) => rm(join(uidDir, n), { recursive: true, force: true }).catch(() => undefined)),
          );
        }),
    );
  }

  /** Whether `checkpoints/<UID>/<RV>` exists for the source; UID and ResourceVersion must be set. */
  async exists(src: NodeConfigSource): Promise<boolean> {
    const cm = src.configMap;
    const sourceText = describeSource(src);
    const fail = (code: CheckpointErrorCode, detail: string, cause?: unknown) =>
      new CheckpointError(
        code,
        `failed to determine whether checkpoint exists for source ${sourceText} exists, error: ${detail}`,
        cause === undefined ? undefined : { cause },
      );
    if (!cm?.uid) throw fail(CheckpointErrorCodes.AmbiguousSource, 'empty UID is ambiguous');
    if (!cm.resourceVersion) throw fail(CheckpointErrorCodes.AmbiguousSource, 'empty ResourceVersion is ambiguous');
    try {
      return await dirExists(this.checkpointPath(cm.uid, cm.resourceVersion));
    } catch (e) {
      const inner = e instanceof CheckpointError ? e : undefined;
      throw fail(inner?.code ?? CheckpointErrorCodes.IO, inner?.message ?? String(e), e);
    }
  }

  /**
   * Writes the payload as `checkpoints/<UID>/<RV>` unless that checkpoint already exists (returns false
   * then: a checkpoint is immutable once written). The files go into a temp directory beside the target,
   * each fsynced, then the directory is fsynced and renamed into place, so no reader ever sees a partial
   * checkpoint. Returns true when this call wrote it.
   */
  save(payload: CheckpointPayload): Promise<boolean> {
    return this.lock.run(() => this.saveLocked(payload));
  }

  private async saveLocked(payload: CheckpointPayload): Promise<boolean> {
    // Upstream refuses a UID/RV-less payload when building it, before the store looks at file names.
    if (!payload.uid)
      throw new CheckpointError(CheckpointErrorCodes.AmbiguousSource, 'ConfigMap must have a non-empty UID');
    if (!payload.resourceVersion) {
      throw new CheckpointError(
        CheckpointErrorCodes.AmbiguousSource,
        'ConfigMap must have a non-empty ResourceVersion',
      );
    }
    for (const name of Object.keys(payload.files)) validateFileKey(name);
    const target = this.checkpointPath(payload.uid, payload.resourceVersion);
    if (await dirExists(target)) return this.addMissingFiles(target, payload.files);

    const uidDir = join(this.checkpointsDir, payload.uid);
    // A new UID directory must itself survive a power loss, or the renamed checkpoint would vanish with it.
    if (await ensureDir(uidDir)) await fsyncDir(this.checkpointsDir, this.fs);

    let tmp: string;
    try {
      tmp = await mkdtemp(join(uidDir, TMP_TAG + payload.resourceVersion));
    } catch (e) {
      throw ioError(e, uidDir, 'mkdirtemp');
    }
    let placed = false;
    try {
      for (const [name, data] of Object.entries(payload.files)) {
        const file = join(tmp, name);
        let fh: AtomicFileHandle;
        try {
          fh = await this.fs.open(file, 'wx', CHECKPOINT_FILE_MODE);
        } catch (e) {
          throw ioError(e, file, 'open');
        }
        try {
          await fh.writeFile(data, 'utf8');
          await fh.sync();
        } catch (e) {
          throw ioError(e, file, 'write');
        } finally {
          await fh.close();
        }
      }
      await fsyncDir(tmp, this.fs);
      try {
        await this.fs.rename(tmp, target);
      } catch (e) {
        const code = errnoCode(e);
        // A concurrent save of the same checkpoint won the race; its content is the same ConfigMap version.
        if ((code === 'ENOTEMPTY' || code === 'EEXIST') && (await dirExists(target))) return false;
        throw new CheckpointError(CheckpointErrorCodes.IO, `rename ${tmp} ${target}: ${goErrnoText(e)}`, { cause: e });
      }
      placed = true;
      await fsyncDir(uidDir, this.fs);
      return true;
    } finally {
      if (!placed) await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * A checkpoint holds the keys its assignments needed: a later assignment of the same ConfigMap version under
   * another key adds that key's file (each written atomically: a crash leaves it whole or absent). Returns whether
   * it wrote one.
   */
  private async addMissingFiles(target: string, files: Record<string, string>): Promise<boolean> {
    let wrote = false;
    for (const [name, data] of Object.entries(files)) {
      const file = join(target, name);
      if (await fileExists(file)) continue;
      try {
        await writeFileAtomic(file, data, CHECKPOINT_FILE_MODE);
      } catch (e) {
        throw ioError(e, file, 'write');
      }
      wrote = true;
    }
    return wrote;
  }

  /**
   * Removes every checkpoint but the ones meta/assigned and meta/last-known-good name and `inUse` (the one the kubelet
   * runs, which may be neither once a new assignment is recorded and before the restart). Only after both records read
   * back cleanly: an unreadable record could name anything, so nothing goes then. A crash mid-prune leaves some
   * unneeded checkpoints behind, never a needed one gone: the records are written (and synced) before this runs, and
   * each removal is of a whole `<uid>/<rv>` directory no record names. Returns the directories removed.
   */
  prune(inUse: readonly (NodeConfigSource | undefined)[] = []): Promise<string[]> {
    return this.lock.run(async () => {
      const keep = new Set<string>();
      for (const src of [await this.assigned(), await this.lastKnownGood(), ...inUse]) {
        const cm = src?.configMap;
        if (cm?.uid && cm.resourceVersion) keep.add(join(cm.uid, cm.resourceVersion));
      }
      const removed: string[] = [];
      for (const uid of await readdir(this.checkpointsDir, { withFileTypes: true })) {
        if (!uid.isDirectory()) continue;
        const uidDir = join(this.checkpointsDir, uid.name);
        const versions = await readdir(uidDir);
        let left = versions.length;
        for (const rv of versions) {
          if (keep.has(join(uid.name, rv)) || rv.startsWith(TMP_TAG)) continue;
          await rm(join(uidDir, rv), { recursive: true, force: true });
          removed.push(join(uid.name, rv));
          left--;
        }
        if (left === 0) await rm(uidDir, { recursive: true, force: true });
      }
      if (removed.length > 0) await fsyncDir(this.checkpointsDir, this.fs);
      return removed;
    });
  }

  /**
   * The kubelet config file of the source's checkpoint (`checkpoints/<UID>/<RV>/<kubeletConfigKey>`),
   * with upstream's errors for a missing checkpoint, an unreadable file and an empty one.
   */
  async load(src: NodeConfigSource): Promise<LoadedCheckpoint> {
    // The key becomes a file name: a record from disk may hold anything, so it must be a ConfigMap key first.
    const keyErrors = isConfigMapKey(src.configMap?.kubeletConfigKey ?? '');
    if (keyErrors.length > 0) {
      throw new CheckpointError(
        CheckpointErrorCodes.InvalidFileKey,
        `invalid kubeletConfigKey ${goQuote(src.configMap?.kubeletConfigKey ?? '')}: ${keyErrors.join('; ')}`,
      );
    }
    if (!(await this.exists(src))) {
      throw new CheckpointError(CheckpointErrorCodes.NotFound, `no checkpoint for source ${describeSource(src)}`);
    }
    const cm = src.configMap!;
    const dir = this.checkpointPath(cm.uid!, cm.resourceVersion!);
    const path = join(dir, cm.kubeletConfigKey);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch (e) {
      throw new CheckpointError(
        CheckpointErrorCodes.Read,
        `failed to read kubelet config file ${goQuote(path)}, error: ${goPathError(e, path, 'open')}`,
        {
          cause: e,
        },
      );
    }
    if (bytes.length === 0)
      throw new CheckpointError(CheckpointErrorCodes.Empty, `kubelet config file ${goQuote(path)} was empty`);
    return { bytes, dir, path };
  }

  /** When meta/assigned was last written: the start of the assigned config's trial period. */
  async assignedModified(): Promise<Date> {
    try {
      return (await stat(this.assignedPath)).mtime;
    } catch (e) {
      throw new CheckpointError(
        CheckpointErrorCodes.IO,
        `failed to stat ${goQuote(this.assignedPath)} while checking modification time, error: ${goPathError(e, this.assignedPath, 'stat')}`,
        { cause: e },
      );
    }
  }

  assigned(): Promise<NodeConfigSource | undefined> {
    return this.readRecord(this.assignedPath);
  }

  lastKnownGood(): Promise<NodeConfigSource | undefined> {
    return this.readRecord(this.lastKnownGoodPath);
  }

  setAssigned(src: MaybeSource): Promise<void> {
    return this.lock.run(() => this.writeAssigned(src));
  }

  setLastKnownGood(src: MaybeSource): Promise<void> {
    return this.lock.run(() => this.writeLastKnownGood(src));
  }

  /** The one writer of meta/assigned; the caller holds the lock. */
  protected writeAssigned(src: MaybeSource): Promise<void> {
    return this.writeRecord(this.assignedPath, src);
  }

  /** The one writer of meta/last-known-good; the caller holds the lock. */
  protected writeLastKnownGood(src: MaybeSource): Promise<void> {
    return this.writeRecord(this.lastKnownGoodPath, src);
  }

  /**
   * Runs `fn` holding the store's lock: no other mutation of the store interleaves with it. `fn` reads and writes the
   * records through `records` (the store's own setters would wait for the lock `fn` holds).
   */
  exclusive<T>(fn: (records: LockedRecords) => Promise<T>): Promise<T> {
    return this.lock.run(() =>
      fn({
        assigned: () => this.assigned(),
        lastKnownGood: () => this.lastKnownGood(),
        setAssigned: (src) => this.writeAssigned(src),
        setLastKnownGood: (src) => this.writeLastKnownGood(src),
      }),
    );
  }

  /**
   * Self-healing (beyond upstream, where an unreadable record stops the kubelet for good): reads a record and,
   * when it cannot be read or decoded, keeps a copy aside as `<record>.corrupt-<time>` and clears it, so the
   * caller can treat it as absent. The copy is best-effort: on a read-only meta/ the record stays and is
   * treated as absent all the same.
   */
  readRecordOrQuarantine(which: 'assigned' | 'last-known-good', now: Date): Promise<RecordReading> {
    const path = which === 'assigned' ? this.assignedPath : this.lastKnownGoodPath;
    return this.lock.run(async () => {
      try {
        return { source: await this.readRecord(path) };
      } catch (e) {
        if (!(e instanceof CheckpointError) || e.code !== CheckpointErrorCodes.Record) throw e;
        const aside = `${path}.corrupt-${now.toISOString().replace(/[:.]/g, '-')}`;
        let kept: string | undefined;
        try {
          await copyFile(path, aside);
          kept = aside;
          await this.writeRecord(path, undefined);
        } catch (err) {
          return { source: undefined, error: e, ...(kept ? { keptAs: kept } : {}), clearError: err as Error };
        }
        return { source: undefined, error: e, keptAs: aside };
      }
    });
  }

  /**
   * Back to the local config: clears last-known-good first, then assigned (upstream's order, so a crash in
   * between never leaves a last-known-good without the assignment that produced it). Returns whether an
   * assignment was cleared, i.e. whether the agent must restart to run its local config.
   */
  reset(): Promise<boolean> {
    return this.lock.run(() => this.resetLocked());
  }

  private async resetLocked(): Promise<boolean> {
    const assigned = await this.assigned();
    try {
      await this.writeLastKnownGood(undefined);
    } catch (e) {
      throw new CheckpointError(
        CheckpointErrorCodes.Reset,
        `failed to reset last-known-good UID in checkpoint store, error: ${errorMessage(e)}`,
        {
          cause: e,
        },
      );
    }
    try {
      await this.writeAssigned(undefined);
    } catch (e) {
      throw new CheckpointError(
        CheckpointErrorCodes.Reset,
        `failed to reset assigned UID in checkpoint store, error: ${errorMessage(e)}`,
        {
          cause: e,
        },
      );
    }
    return assigned !== undefined;
  }

  /** Crash-loop accounting (beyond upstream): one more start of `src`; returns the consecutive count. */
  recordStart(src: MaybeSource): Promise<number> {
    return this.lock.run(() => this.ledger.recordStart(src));
  }

  /** `src` reached health; its count of unhealthy starts goes back to zero. */
  recordHealthy(src: MaybeSource): Promise<void> {
    return this.lock.run(() => this.ledger.recordHealthy(src));
  }

  /** `src`'s start ended in a clean stop before it reached health: that start is not a crash. */
  recordCleanStop(src: MaybeSource): Promise<void> {
    return this.lock.run(() => this.ledger.recordCleanStop(src));
  }

  /** Consecutive starts of `src` without reaching health (zero if another source is being counted). */
  startsWithoutHealthy(src: MaybeSource): Promise<number> {
    return this.ledger.startsWithoutHealthy(src);
  }

  private async readRecord(path: string): Promise<NodeConfigSource | undefined> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      throw new CheckpointError(CheckpointErrorCodes.Record, goPathError(e, path, 'open'), { cause: e });
    }
    let src: NodeConfigSource | undefined;
    try {
      src = parseSource(text);
    } catch (e) {
      throw new CheckpointError(CheckpointErrorCodes.Record, errorMessage(e), { cause: e });
    }
    const invalid = src ? sourceNameErrors(src) : [];
    if (invalid.length > 0)
      throw new CheckpointError(CheckpointErrorCodes.Record, `invalid record ${goQuote(path)}: ${invalid.join('; ')}`);
    return src;
  }

  private async writeRecord(path: string, src: MaybeSource): Promise<void> {
    let data = '';
    if (src != null) {
      // apiPath() refuses a source with no known subfield before the UID/RV checks can misreport it.
      apiPath(src);
      if (!src.configMap!.uid) {
        throw new CheckpointError(
          CheckpointErrorCodes.AmbiguousSource,
          'failed to write RemoteConfigSource, empty UID is ambiguous',
        );
      }
      if (!src.configMap!.resourceVersion) {
        throw new CheckpointError(
          CheckpointErrorCodes.AmbiguousSource,
          'failed to write RemoteConfigSource, empty ResourceVersion is ambiguous',
        );
      }
      data = serializeSource(src);
    }
    try {
      await writeFileAtomic(path, data, RECORD_MODE, this.fs);
    } catch (e) {
      throw ioError(e, path, 'open');
    }
  }
}
