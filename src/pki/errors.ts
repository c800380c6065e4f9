// The PKI module's error catalogue. Every failure carries a stable code so that callers (dkc up, the
// server's start-up) can tell a damaged pki/ directory from a bad argument without parsing messages.

import { CodedError } from '../util/errors.js';

export type PkiErrorCode =
  /** A PEM block is missing, of the wrong type, or does not parse. */
  | 'DKC_PKI_INVALID_PEM'
  /** The key's algorithm or curve is not one dkc can sign with. */
  | 'DKC_PKI_UNSUPPORTED_KEY'
  /** A certificate and the key stored beside it do not belong together. */
  | 'DKC_PKI_KEY_MISMATCH'
  /** The pki directory holds some files of a set but not the others, so it cannot be completed safely. */
  | 'DKC_PKI_INCOMPLETE'
  /** A certificate must be issued but the CA's private key is not present. */
  | 'DKC_PKI_CA_KEY_MISSING'
  /** Another process holds the creation lock for too long. */
  | 'DKC_PKI_LOCKED'
  /** A caller passed a value that cannot go into a certificate (bad IP address, empty name, ...). */
  | 'DKC_PKI_INVALID_ARGUMENT';

export class PkiError extends CodedError<PkiErrorCode> {
  override name = 'PkiError';
}
