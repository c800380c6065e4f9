// The base of the modules' typed errors: a message for people and a stable code for programs (each module has its
// own union of codes, mapped to a Kubernetes Status or an exit code where the error leaves the process).

export class CodedError<C extends string> extends Error {
  readonly code: C;
  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
