// Directories and files only their owner may read: a data directory holds every stored object (Secrets included)
// and the cluster's keys. Created with the mode, and tightened when they already exist with a wider one (a data
// directory from an earlier version, or one a user made), since mkdir and open leave an existing mode alone.

import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

function tighten(path: string, mode: number): void {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if ((st.mode & 0o777) !== mode) chmodSync(path, mode);
}

/** `dir` (and its missing parents) exists with mode 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir, PRIVATE_DIR_MODE);
}

/**
 * An SQLite database's file exists with mode 0600 before SQLite opens it (SQLite gives its -wal and -shm files the
 * database file's mode), and those two, when a run left them, are 0600 too.
 */
export function ensurePrivateDatabase(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) tighten(p, PRIVATE_FILE_MODE);
}
