import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../src/util/atomicfile.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dkc-atomic-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('creates and replaces a file, leaving no temp file behind', async () => {
    const p = join(dir, 'a.txt');
    await writeFileAtomic(p, 'one');
    await writeFileAtomic(p, new Uint8Array([0x74, 0x77, 0x6f]));
    assert.equal(await readFile(p, 'utf8'), 'two');
    assert.deepEqual(await readdir(dir), ['a.txt']);
    assert.equal((await stat(p)).mode & 0o777, 0o644);
  });

  it('applies the requested mode exactly, regardless of umask', async () => {
    const p = join(dir, 'secret.key');
    const old = process.umask(0o077);
    try {
      await writeFileAtomic(p, 'k', 0o640);
    } finally {
      process.umask(old);
    }
    assert.equal((await stat(p)).mode & 0o777, 0o640);
    await writeFileAtomic(p, 'k2', 0o600);
    assert.equal((await stat(p)).mode & 0o777, 0o600);
  });

  it('keeps the old content when the write cannot complete', async () => {
    const p = join(dir, 'kept.txt');
    await writeFileAtomic(p, 'old');
    // Renaming a file over a directory fails after the temp file was written: it must be cleaned up.
    await mkdir(join(dir, 'adir'));
    await assert.rejects(writeFileAtomic(join(dir, 'adir'), 'new'), { code: 'EISDIR' });
    await assert.rejects(writeFileAtomic(join(dir, 'missing', 'x'), 'new'), { code: 'ENOENT' });
    assert.equal(await readFile(p, 'utf8'), 'old');
    assert.ok((await readdir(dir)).every((n) => !n.includes('.tmp-')));
  });
});
