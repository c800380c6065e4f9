// The one way a test waits for observable state: bounded polling with `waitFor`. `probe` returns undefined or false
// (or throws) until the state is reached, and the state itself once it is. A probe that never settles (a request to a
// process that accepted and hung) counts as a failed try once the deadline passes, so a wait always ends by its
// deadline with what it last saw.
//
// Wait for what the test is about (a status, a file, a log line, a process gone), never for a fixed time. A check that
// something does NOT happen is made on the code's injected clock or after an awaited event that would have come after
// it, not after a sleep.

import { errorMessage } from '../../src/util/errors.js';

export interface WaitOptions {
  /** How long to keep trying; default 20 s. */
  timeoutMs?: number;
  /** The pause between tries; default 50 ms. */
  stepMs?: number;
}

type Awaitable<T> = T | Promise<T>;

/** For the timeout's message: the awaited state as a phrase ("node-1 Ready"), or a function that describes what was
 * seen instead ("node-1 still NotReady: ..."), read once the time is up. */
export type WaitWhat = string | (() => Awaitable<string>);

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_STEP_MS = 50;

export async function waitFor<T>(
  what: WaitWhat,
  probe: () => Awaitable<T | undefined | false>,
  options?: WaitOptions,
): Promise<T>;
/** The positional form, kept for existing callers: `waitFor(what, probe, timeoutMs, stepMs)`. */
export async function waitFor<T>(
  what: WaitWhat,
  probe: () => Awaitable<T | undefined | false>,
  timeoutMs?: number,
  stepMs?: number,
): Promise<T>;
export async function waitFor<T>(
  what: WaitWhat,
  probe: () => Awaitable<T | undefined | false>,
  options: WaitOptions | number = {},
  step?: number,
): Promise<T> {
  const { timeoutMs = DEFAULT_TIMEOUT_MS, stepMs = DEFAULT_STEP_MS } =
    typeof options === 'number' ? { timeoutMs: options, stepMs: step } : options;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await beforeDeadline(Promise.resolve(probe()), deadline, what);
      if (v !== undefined && v !== false) return v;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, Math.min(stepMs, Math.max(0, deadline - Date.now()))));
  }
  const seen = typeof what === 'string' ? ` waiting for ${what}` : `: ${await what()}`;
  throw new Error(`timed out after ${timeoutMs} ms${seen}${last ? `\nlast probe error: ${errorMessage(last)}` : ''}`);
}

/** `p`, or a rejection once `deadline` passes with `p` still pending. */
async function beforeDeadline<T>(p: Promise<T>, deadline: number, what: WaitWhat): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`a probe${typeof what === 'string' ? ` for ${what}` : ''} did not answer before the deadline`),
        ),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
