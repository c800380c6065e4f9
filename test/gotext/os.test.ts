import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { goBase, goErrnoText, goModeString, goPathErrorText } from '../../src/gotext/os.js';

describe('Go renderings of filesystem failures', () => {
  it('path.Base', () => {
    // Go: path.Base("") == ".", path.Base("///") == "/", path.Base("a/b/") == "b".
    for (const [p, want] of [
      ['', '.'],
      ['///', '/'],
      ['a/b/', 'b'],
      ['/x', 'x'],
      ['kubelet', 'kubelet'],
    ] as const)
      assert.equal(goBase(p), want, p);
  });

  it('fs.FileMode.String()', () => {
    assert.equal(goModeString(0o040755), 'drwxr-xr-x');
    assert.equal(goModeString(0o100644), '-rw-r--r--');
    assert.equal(goModeString(0o120777), 'Lrwxrwxrwx');
    assert.equal(goModeString(0o010600), 'prw-------');
    assert.equal(goModeString(0o020620), 'Dcrw--w----');
    assert.equal(goModeString(0o041777), 'dtrwxrwxrwx');
  });

  it("os.PathError: the syscall's op and Go's errno text", () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open '/x'"), {
      code: 'ENOENT',
      syscall: 'open',
    });
    assert.equal(goPathErrorText(enoent, '/x', 'stat'), 'open /x: no such file or directory');
    const scandir = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'scandir' });
    assert.equal(goPathErrorText(scandir, '/d', 'readdir'), 'open /d: permission denied');
    assert.equal(goPathErrorText(new Error('odd'), '/y', 'stat'), 'stat /y: odd');
    assert.equal(goErrnoText(Object.assign(new Error('x'), { code: 'EXDEV' })), 'invalid cross-device link');
  });
});
