// The base of the modules' typed errors: a message for people and a stable code for programs. Every code is spelled
// DKC_<AREA>_<NAME>; each module keeps its own union of codes (its catalogue, with a line saying what each means), and
// where an error leaves the process it becomes a Kubernetes Status (the server) or an exit code (src/cli/exit.ts).
// docs/errors.md lists them all (scripts/gen-errors-doc.mjs).

export class CodedError<C extends string> extends Error {
  readonly code: C;
  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The text of anything thrown: an Error's message, anything else as a string. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
