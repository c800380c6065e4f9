import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  CheckpointError,
  CheckpointErrorCodes,
  CheckpointStore,
  type CheckpointErrorCode,
} from '../../../src/agent/dynamicconfig/checkpoint.js';
import {
  serializeSource,
  SourceError,
  type MaybeSource,
  type NodeConfigSource,
} from '../../../src/agent/dynamicconfig/source.js';
import { ref, REFERENCE_YAML } from './fixtures/reference.js';

const other: NodeConfigSource = {
  configMap: {
    namespace: 'kube-system',
    name: 'node-config-2',
    uid: 'uid-2',
    resourceVersion: '7',
    kubeletConfigKey: 'kubelet',
  },
};

function src(
  uid: string | undefined,
  resourceVersion: string | undefined,
  kubeletConfigKey = 'kubelet',
): NodeConfigSource {
  return {
    configMap: {
      namespace: 'namespace',
      name: 'name',
      ...(uid !== undefined ? { uid } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      kubeletConfigKey,
    },
  };
}

function isCheckpointError(code: CheckpointErrorCode, message: string | RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof CheckpointError, `expected a CheckpointError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  };
}

/** Every path under `root`, relative, sorted; directories end in `/`. */
async function tree(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        out.push(relative(root, p) + '/');
        await walk(p);
      } else out.push(relative(root, p));
    }
  };
  await walk(root);
  return out.sort();
}

let base: string;
let seq = 0;
const oldUmask = process.umask(0o022);

before(async () => {
  base = await mkdtemp(join(tmpdir(), 'dkc-checkpoint-'));
});
after(async () => {
  process.umask(oldUmask);
  await rm(base, { recursive: true, force: true });
});

/** A fresh, initialized store in its own --dynamic-config-dir. */
async function freshStore(): Promise<CheckpointStore> {
  const store = new CheckpointStore(join(base, `node-${++seq}`));
  await store.initialize();
  return store;
}

describe('initialize', () => {
  it('creates exactly upstream’s layout', async () => {
    const dir = join(base, 'layout');
    const store = new CheckpointStore(dir);
    assert.equal(store.dir, join(dir, 'store'));
    await store.initialize();
    assert.deepEqual(await tree(dir), [
      'store/',
      'store/checkpoints/',
      'store/meta/',
      'store/meta/assigned',
      'store/meta/last-known-good',
    ]);
    for (const d of ['store', 'store/meta', 'store/checkpoints']) {
      const st = await stat(join(dir, d));
      assert.equal(st.mode & 0o777, 0o755, d);
    }
    assert.equal((await readFile(join(dir, 'store/meta/assigned'))).length, 0);
    assert.equal((await readFile(join(dir, 'store/meta/last-known-good'))).length, 0);
  });

  it('resolves a relative --dynamic-config-dir against the working directory', () => {
    assert.equal(new CheckpointStore('rel/dir').dir, join(process.cwd(), 'rel/dir/store'));
  });

  it('leaves existing content untouched and is idempotent', async () => {
    const store = await freshStore();
    await store.setAssigned(ref);
    await store.save({ uid: 'uid', resourceVersion: '1', files: { kubelet: 'a' } });
    const before = await tree(store.dir);
    await store.initialize();
    await new CheckpointStore(join(store.dir, '..')).initialize();
    assert.deepEqual(await tree(store.dir), before);
    assert.equal(await readFile(store.assignedPath, 'utf8'), REFERENCE_YAML);
  });

  it('sweeps the temporaries a crash leaves behind, and nothing else', async () => {
    const store = await freshStore();
    await store.save({ uid: 'uid', resourceVersion: '1', files: { kubelet: 'a' } });
    await writeFile(join(store.metaDir, '.assigned.tmp-123-abcdef'), 'half');
    await writeFile(join(store.metaDir, 'notes'), 'kept');
    await mkdir(join(store.checkpointsDir, 'uid', 'tmp_2xYz12'));
    await writeFile(join(store.checkpointsDir, 'uid', 'tmp_2xYz12', 'kubelet'), 'half');
    await mkdir(join(store.checkpointsDir, 'uid-b', 'tmp_9abcdef'), { recursive: true });
    await store.initialize();
    assert.deepEqual(await tree(store.dir), [
      'checkpoints/',
      'checkpoints/uid-b/',
      'checkpoints/uid/',
      'checkpoints/uid/1/',
      'checkpoints/uid/1/kubelet',
      'meta/',
      'meta/assigned',
      'meta/last-known-good',
      'meta/notes',
    ]);
  });

  it('refuses a record path that is not a regular file', async () => {
    const dir = join(base, 'bad-meta');
    await mkdir(join(dir, 'store/meta/assigned'), { recursive: true });
    const store = new CheckpointStore(dir);
    await assert.rejects(
      store.initialize(),
      isCheckpointError(
        CheckpointErrorCodes.NotRegularFile,
        `expected regular file at "${store.assignedPath}", but mode is "drwxr-xr-x"`,
      ),
    );
  });

  it('refuses a store path that is not a directory', async () => {
    const dir = join(base, 'bad-store');
    await mkdir(dir);
    await writeFile(join(dir, 'store'), '');
    await assert.rejects(
      new CheckpointStore(dir).initialize(),
      isCheckpointError(
        CheckpointErrorCodes.NotDirectory,
        `expected dir at "${join(dir, 'store')}", but mode is "-rw-r--r--"`,
      ),
    );
  });
});

describe('assigned and last-known-good records', () => {
  it('an empty record is nil', async () => {
    const store = await freshStore();
    assert.equal(await store.assigned(), undefined);
    assert.equal(await store.lastKnownGood(), undefined);
  });

  it('round-trip, in upstream’s exact format, with mode 0644', async () => {
    const store = await freshStore();
    await store.setAssigned(ref);
    await store.setLastKnownGood(other);
    assert.equal(await readFile(store.assignedPath, 'utf8'), REFERENCE_YAML);
    assert.equal(await readFile(store.lastKnownGoodPath, 'utf8'), serializeSource(other));
    assert.deepEqual(await store.assigned(), ref);
    assert.deepEqual(await store.lastKnownGood(), other);
    assert.equal((await stat(store.assignedPath)).mode & 0o777, 0o644);
    await store.setAssigned(undefined);
    await store.setLastKnownGood(null);
    assert.equal((await readFile(store.assignedPath)).length, 0);
    assert.equal((await readFile(store.lastKnownGoodPath)).length, 0);
    assert.equal(await store.assigned(), undefined);
    assert.deepEqual(await tree(store.metaDir), ['assigned', 'last-known-good']);
  });

  it('a record without UID or ResourceVersion is refused and the file left as it was', async () => {
    const store = await freshStore();
    await store.setAssigned(ref);
    for (const set of [store.setAssigned.bind(store), store.setLastKnownGood.bind(store)]) {
      await assert.rejects(
        set(src(undefined, '1')),
        isCheckpointError(
          CheckpointErrorCodes.AmbiguousSource,
          'failed to write RemoteConfigSource, empty UID is ambiguous',
        ),
      );
      await assert.rejects(
        set(src('uid', '')),
        isCheckpointError(
          CheckpointErrorCodes.AmbiguousSource,
          'failed to write RemoteConfigSource, empty ResourceVersion is ambiguous',
        ),
      );
    }
    assert.equal(await readFile(store.assignedPath, 'utf8'), REFERENCE_YAML);
    assert.equal((await readFile(store.lastKnownGoodPath)).length, 0);
  });

  it('an all-nil source is refused', async () => {
    const store = await freshStore();
    await assert.rejects(store.setAssigned({}), (e: unknown) => e instanceof SourceError);
  });

  it('an undecodable record is an error carrying the decoder’s text', async () => {
    const store = await freshStore();
    await writeFile(
      store.assignedPath,
      'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource: {}\n',
    );
    await assert.rejects(
      store.assigned(),
      isCheckpointError(
        CheckpointErrorCodes.Record,
        /^invalid NodeConfigSource, exactly one subfield must be non-nil, but all were nil/,
      ),
    );
    await writeFile(store.lastKnownGoodPath, 'kind: [');
    await assert.rejects(
      store.lastKnownGood(),
      isCheckpointError(CheckpointErrorCodes.Record, /^failed to decode, error: /),
    );
  });

  it('a missing record file is an error in Go’s words', async () => {
    const store = new CheckpointStore(join(base, 'uninitialized'));
    await assert.rejects(
      store.assigned(),
      isCheckpointError(CheckpointErrorCodes.Record, `open ${store.assignedPath}: no such file or directory`),
    );
  });

  it('every setAssigned moves the mtime of meta/assigned', async () => {
    const store = await freshStore();
    const past = new Date('2020-01-01T00:00:00Z');
    for (const s of [ref, ref, other, undefined] as MaybeSource[]) {
      await utimes(store.assignedPath, past, past);
      assert.equal((await store.assignedModified()).getTime(), past.getTime());
      const t0 = Date.now();
      await store.setAssigned(s);
      const m = (await store.assignedModified()).getTime();
      // Coarse filesystem clocks may lag the wall clock by a tick; a second of slack still rules out `past`.
      assert.ok(m >= t0 - 1000 && m <= Date.now() + 1000, `mtime ${new Date(m).toISOString()} not near now`);
    }
  });

  it('assignedModified reports a missing file in upstream’s words', async () => {
    const store = new CheckpointStore(join(base, 'no-meta'));
    await assert.rejects(
      store.assignedModified(),
      isCheckpointError(
        CheckpointErrorCodes.IO,
        `failed to stat "${store.assignedPath}" while checking modification time, error: stat ${store.assignedPath}: no such file or directory`,
      ),
    );
  });
});

describe('exists', () => {
  it('reports saved checkpoints only', async () => {
    const store = await freshStore();
    await store.save({ uid: 'uid', resourceVersion: '1', files: {} });
    assert.equal(await store.exists(src('uid', '1')), true);
    assert.equal(await store.exists(src('uid', '2')), false);
    assert.equal(await store.exists(src('bogus-uid', 'bogus-resourceVersion')), false);
  });

  it('needs UID and ResourceVersion', async () => {
    const store = await freshStore();
    await assert.rejects(
      store.exists(src('', 'bogus-resourceVersion')),
      isCheckpointError(
        CheckpointErrorCodes.AmbiguousSource,
        'failed to determine whether checkpoint exists for source /api/v1/namespaces/namespace/configmaps/name, UID: , ResourceVersion: bogus-resourceVersion exists, error: empty UID is ambiguous',
      ),
    );
    await assert.rejects(
      store.exists(src('bogus-uid', undefined)),
      isCheckpointError(
        CheckpointErrorCodes.AmbiguousSource,
        'failed to determine whether checkpoint exists for source /api/v1/namespaces/namespace/configmaps/name, UID: bogus-uid, ResourceVersion:  exists, error: empty ResourceVersion is ambiguous',
      ),
    );
  });

  it('a file where the checkpoint directory belongs is an error', async () => {
    const store = await freshStore();
    await mkdir(join(store.checkpointsDir, 'uid'));
    const p = join(store.checkpointsDir, 'uid', '1');
    await writeFile(p, 'not a dir');
    await assert.rejects(
      store.exists(ref),
      isCheckpointError(
        CheckpointErrorCodes.NotDirectory,
        `failed to determine whether checkpoint exists for source /api/v1/namespaces/namespace/configmaps/name, UID: uid, ResourceVersion: 1 exists, error: expected dir at "${p}", but mode is "-rw-r--r--"`,
      ),
    );
  });

  it('a UID or ResourceVersion that would leave the checkpoints directory is refused', async () => {
    const store = await freshStore();
    for (const [u, r] of [
      ['..', '1'],
      ['uid', '..'],
      ['a/b', '1'],
      ['uid', '.'],
    ]) {
      await assert.rejects(
        store.exists(src(u, r)),
        (e: unknown) => e instanceof CheckpointError && e.code === CheckpointErrorCodes.InvalidPath,
      );
    }
    await assert.rejects(
      store.save({ uid: '../x', resourceVersion: '1', files: {} }),
      isCheckpointError(CheckpointErrorCodes.InvalidPath, 'invalid checkpoint path component "../x"'),
    );
  });
});

describe('save', () => {
  it('writes exactly the data files, and nothing else', async () => {
    const store = await freshStore();
    const files = {
      kubelet: 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n',
      'other.conf': 'x=1\n',
      empty: '',
      ünï: 'ß',
    };
    assert.equal(await store.save({ uid: 'uid', resourceVersion: '1', files }), true);
    const dir = join(store.checkpointsDir, 'uid', '1');
    assert.deepEqual(
      await tree(store.checkpointsDir),
      ['uid/', 'uid/1/', ...Object.keys(files).map((n) => `uid/1/${n}`)].sort(),
    );
    for (const [name, content] of Object.entries(files)) assert.equal(await readFile(join(dir, name), 'utf8'), content);
  });

  it('never rewrites a file of an existing checkpoint; adds a key a later assignment of that version needs', async () => {
    const store = await freshStore();
    assert.equal(await store.save({ uid: 'uid', resourceVersion: '1', files: { kubelet: 'first' } }), true);
    assert.equal(await store.save({ uid: 'uid', resourceVersion: '1', files: { kubelet: 'second' } }), false);
    assert.equal(
      await store.save({ uid: 'uid', resourceVersion: '1', files: { kubelet: 'second', extra: 'x' } }),
      true,
    );
    assert.deepEqual((await readdir(join(store.checkpointsDir, 'uid', '1'))).sort(), ['extra', 'kubelet']);
    assert.equal(await readFile(join(store.checkpointsDir, 'uid', '1', 'kubelet'), 'utf8'), 'first');
    assert.equal(await store.save({ uid: 'uid', resourceVersion: '2', files: { kubelet: 'second' } }), true);
    assert.deepEqual((await readdir(join(store.checkpointsDir, 'uid'))).sort(), ['1', '2']);
  });

  it('concurrent saves of one checkpoint produce one complete checkpoint', async () => {
    const store = await freshStore();
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        store.save({ uid: 'uid', resourceVersion: '5', files: { kubelet: 'same', b: 'b' } }),
      ),
    );
    assert.equal(
      results.filter(Boolean).length,
      1,
      `saves that reported writing the checkpoint: ${JSON.stringify(results)}`,
    );
    assert.deepEqual(await tree(store.checkpointsDir), ['uid/', 'uid/5/', 'uid/5/b', 'uid/5/kubelet']);
  });

  it('concurrent saves of a checkpoint with no files: exactly one reports the write', async () => {
    // rename(2) replaces an empty directory, so here the file system does not pick the winner.
    const store = await freshStore();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => store.save({ uid: 'uid', resourceVersion: '6', files: {} })),
    );
    assert.equal(
      results.filter(Boolean).length,
      1,
      `saves that reported writing the checkpoint: ${JSON.stringify(results)}`,
    );
    assert.deepEqual(await tree(store.checkpointsDir), ['uid/', 'uid/6/']);
  });

  it('validates file keys with upstream’s messages and writes nothing', async () => {
    const store = await freshStore();
    const long = 'a'.repeat(256);
    const cases: Array<[string, string]> = [
      ['', 'invalid file key: must not be empty: ""'],
      ['foo/bar', 'invalid file key "foo/bar", only base names are allowed'],
      ['/bar', 'invalid file key "/bar", only base names are allowed'],
      ['foo/', 'invalid file key "foo/", only base names are allowed'],
      ['.', "invalid file key, may not be '.' or '..'"],
      ['..', "invalid file key, may not be '.' or '..'"],
      [long, `invalid file key "${long}", must be less than 255 characters`],
    ];
    for (const [name, message] of cases) {
      await assert.rejects(
        store.save({ uid: 'uid', resourceVersion: '1', files: { kubelet: 'ok', [name]: 'x' } }),
        isCheckpointError(CheckpointErrorCodes.InvalidFileKey, message),
      );
    }
    assert.equal(await store.save({ uid: 'uid', resourceVersion: '1', files: { ['a'.repeat(255)]: 'x' } }), true);
    assert.deepEqual(await tree(store.checkpointsDir), ['uid/', 'uid/1/', `uid/1/${'a'.repeat(255)}`]);
  });

  it('needs a UID and a ResourceVersion', async () => {
    const store = await freshStore();
    await assert.rejects(
      store.save({ uid: '', resourceVersion: '1', files: {} }),
      isCheckpointError(CheckpointErrorCodes.AmbiguousSource, 'ConfigMap must have a non-empty UID'),
    );
    await assert.rejects(
      store.save({ uid: 'u', resourceVersion: '', files: {} }),
      isCheckpointError(CheckpointErrorCodes.AmbiguousSource, 'ConfigMap must have a non-empty ResourceVersion'),
    );
    assert.deepEqual(await tree(store.checkpointsDir), []);
  });

  it('a failed write leaves no temp directory behind', async () => {
    const store = await freshStore();
    // A key that passes upstream's checks but names a file no filesystem can create: the first file is
    // already written when the second fails.
    await assert.rejects(
      store.save({ uid: 'uid', resourceVersion: '1', files: { kubelet: 'ok', 'a\0b': 'x' } }),
      (e: unknown) => e instanceof CheckpointError,
    );
    const entries = await readdir(store.checkpointsDir);
    for (const u of entries) assert.deepEqual(await readdir(join(store.checkpointsDir, u)), []);
  });
});

describe('load', () => {
  const kc = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nkubeAPIQPS: 7\n';

  it('returns the kubelet file’s bytes and the checkpoint directory', async () => {
    const store = await freshStore();
    await store.save({ uid: 'uid', resourceVersion: '1', files: { kubelet: kc, other: 'x' } });
    const got = await store.load(ref);
    const dir = join(store.checkpointsDir, 'uid', '1');
    assert.equal(got.dir, dir);
    assert.equal(got.path, join(dir, 'kubelet'));
    assert.equal(Buffer.from(got.bytes).toString('utf8'), kc);
  });

  it('reports a missing checkpoint', async () => {
    const store = await freshStore();
    await assert.rejects(
      store.load(src('bogus-uid', 'bogus-resourceVersion')),
      isCheckpointError(
        CheckpointErrorCodes.NotFound,
        'no checkpoint for source /api/v1/namespaces/namespace/configmaps/name, UID: bogus-uid, ResourceVersion: bogus-resourceVersion',
      ),
    );
  });

  it('an ambiguous source fails as exists does', async () => {
    const store = await freshStore();
    await assert.rejects(
      store.load(src('', 'x')),
      isCheckpointError(CheckpointErrorCodes.AmbiguousSource, /error: empty UID is ambiguous$/),
    );
  });

  it('reports a missing, unreadable or empty kubelet file', async () => {
    const store = await freshStore();
    await store.save({ uid: 'uid', resourceVersion: '1', files: { other: 'x', empty: '' } });
    const dir = join(store.checkpointsDir, 'uid', '1');
    const missing = join(dir, 'kubelet');
    await assert.rejects(
      store.load(ref),
      isCheckpointError(
        CheckpointErrorCodes.Read,
        `failed to read kubelet config file "${missing}", error: open ${missing}: no such file or directory`,
      ),
    );
    const empty = join(dir, 'empty');
    await assert.rejects(
      store.load(src('uid', '1', 'empty')),
      isCheckpointError(CheckpointErrorCodes.Empty, `kubelet config file "${empty}" was empty`),
    );
    await mkdir(join(dir, 'adir'));
    const adir = join(dir, 'adir');
    await assert.rejects(
      store.load(src('uid', '1', 'adir')),
      isCheckpointError(
        CheckpointErrorCodes.Read,
        `failed to read kubelet config file "${adir}", error: read ${adir}: is a directory`,
      ),
    );
  });
});

describe('reset', () => {
  it('clears both records and reports whether an assignment was cleared', async () => {
    const store = await freshStore();
    await store.setAssigned(ref);
    await store.setLastKnownGood(other);
    assert.equal(await store.reset(), true);
    assert.equal(await store.assigned(), undefined);
    assert.equal(await store.lastKnownGood(), undefined);
    assert.equal(await store.reset(), false);
    await store.setLastKnownGood(other);
    assert.equal(await store.reset(), false, 'only the assigned record decides');
    assert.equal(await store.lastKnownGood(), undefined);
  });

  it('clears last-known-good before assigned', async () => {
    const calls: string[] = [];
    class Recording extends CheckpointStore {
      protected override async writeLastKnownGood(s: MaybeSource): Promise<void> {
        calls.push(`lkg:${s === undefined ? 'nil' : 'set'}`);
        return super.writeLastKnownGood(s);
      }
      protected override async writeAssigned(s: MaybeSource): Promise<void> {
        calls.push(`assigned:${s === undefined ? 'nil' : 'set'}`);
        if (s === undefined && failAssigned) throw new Error('disk on fire');
        return super.writeAssigned(s);
      }
    }
    let failAssigned = false;
    const store = new Recording(join(base, `node-${++seq}`));
    await store.initialize();
    await store.setAssigned(ref);
    await store.setLastKnownGood(other);
    calls.length = 0;
    assert.equal(await store.reset(), true);
    assert.deepEqual(calls, ['lkg:nil', 'assigned:nil']);

    await store.setAssigned(ref);
    await store.setLastKnownGood(other);
    failAssigned = true;
    await assert.rejects(
      store.reset(),
      isCheckpointError(
        CheckpointErrorCodes.Reset,
        'failed to reset assigned UID in checkpoint store, error: disk on fire',
      ),
    );
    assert.equal(await store.lastKnownGood(), undefined, 'last-known-good was already cleared');
    assert.deepEqual(await store.assigned(), ref);
  });

  it('an unreadable assigned record stops the reset before anything is written', async () => {
    const store = await freshStore();
    await store.setLastKnownGood(other);
    await writeFile(store.assignedPath, 'kind: [');
    await assert.rejects(
      store.reset(),
      (e: unknown) => e instanceof CheckpointError && e.code === CheckpointErrorCodes.Record,
    );
    assert.deepEqual(await store.lastKnownGood(), other);
  });
});

describe('crash-loop accounting', () => {
  it('counts consecutive starts per source, reset by health or by another source', async () => {
    const store = await freshStore();
    assert.equal(await store.startsWithoutHealthy(ref), 0);
    assert.equal(await store.recordStart(ref), 1);
    assert.equal(await store.recordStart(ref), 2);
    assert.equal(await store.recordStart(structuredClone(ref)), 3);
    assert.equal(await store.startsWithoutHealthy(ref), 3);
    assert.equal(await store.startsWithoutHealthy(other), 0);
    // A new resourceVersion of the same ConfigMap is a different source.
    assert.equal(await store.startsWithoutHealthy(src('uid', '2')), 0);

    // Persisted: a fresh store over the same directory sees the same count.
    const again = new CheckpointStore(join(store.dir, '..'));
    assert.equal(await again.startsWithoutHealthy(ref), 3);

    assert.equal(await store.recordStart(other), 1);
    assert.equal(await store.startsWithoutHealthy(ref), 0);
    assert.equal(await store.recordStart(other), 2);
    await store.recordHealthy(other);
    assert.equal(await store.startsWithoutHealthy(other), 0);
    assert.equal(await store.recordStart(other), 1);
    await store.recordHealthy(ref);
    assert.equal(await store.startsWithoutHealthy(other), 0, 'health of another source resets the record');

    assert.equal(await store.recordStart(undefined), 1, 'the local config is counted too');
    assert.equal(await store.recordStart(null), 2);
    assert.equal(await store.startsWithoutHealthy(ref), 0);
  });

  it('a damaged record counts as none and is replaced by the next start', async () => {
    const store = await freshStore();
    const path = join(store.metaDir, 'starts');
    for (const junk of [
      '',
      '{',
      '[]',
      '{"source":null,"startsWithoutHealthy":-1}',
      '{"source":7,"startsWithoutHealthy":2}',
    ]) {
      await writeFile(path, junk);
      assert.equal(await store.startsWithoutHealthy(undefined), 0, junk);
    }
    assert.equal(await store.recordStart(ref), 1);
    assert.equal(await store.recordStart(ref), 2);
  });

  it('the ledger is written atomically next to the records', async () => {
    const store = await freshStore();
    await store.recordStart(ref);
    assert.deepEqual(await tree(store.metaDir), ['assigned', 'last-known-good', 'starts']);
  });
});
