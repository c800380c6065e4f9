// Go's renderings of filesystem failures (os.PathError, syscall.Errno, fs.FileMode, path.Base), for messages that
// must read as the Go binaries' do: the kubelet's checkpoint errors embed them.

// Go's syscall.Errno texts where they differ from (or are missing in) libuv's.
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  EEXIST: 'file exists',
  ENOTEMPTY: 'directory not empty',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  EMFILE: 'too many open files',
  EDQUOT: 'disk quota exceeded',
  EXDEV: 'invalid cross-device link',
  // Node refuses some paths (a NUL byte) before the kernel sees them; Go gets EINVAL for the same.
  ERR_INVALID_ARG_VALUE: 'invalid argument',
};

/** The error code (ENOENT, ...) of a failed Node.js filesystem call. */
export function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string'
    ? (e as { code: string }).code
    : undefined;
}

/** syscall.Errno's text for a failed call; the error's own message when Go's is not known. */
export function goErrnoText(e: unknown): string {
  const code = errnoCode(e);
  return (code !== undefined ? ERRNO_TEXT[code] : undefined) ?? (e instanceof Error ? e.message : String(e));
}

/** os.PathError's text: `<op> <path>: <errno text>`, the op taken from the failed syscall. */
export function goPathErrorText(e: unknown, path: string, op: string): string {
  const syscall = typeof e === 'object' && e !== null ? (e as { syscall?: unknown }).syscall : undefined;
  const realOp = syscall === 'scandir' ? 'open' : typeof syscall === 'string' ? syscall : op;
  return `${realOp} ${path}: ${goErrnoText(e)}`;
}

/** fs.FileMode.String() of Go for a stat mode, as in "expected dir at …, but mode is …". */
export function goModeString(mode: number): string {
  const fmt = mode & 0o170000;
  let out = '';
  if (fmt === 0o040000) out += 'd';
  if (fmt === 0o120000) out += 'L';
  if (fmt === 0o060000 || fmt === 0o020000) out += 'D';
  if (fmt === 0o010000) out += 'p';
  if (fmt === 0o140000) out += 'S';
  if (mode & 0o4000) out += 'u';
  if (mode & 0o2000) out += 'g';
  if (fmt === 0o020000) out += 'c';
  if (mode & 0o1000) out += 't';
  if (out === '') out = '-';
  const rwx = 'rwxrwxrwx';
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? rwx[i] : '-';
  return out;
}

/** path.Base of Go: the last element, trailing slashes removed; "." for "" and "/" for slashes only. */
export function goBase(p: string): string {
  if (p === '') return '.';
  const trimmed = p.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
