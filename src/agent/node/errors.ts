// The error catalogue of the node lifecycle modules (capacity, registration, serving). Each failure has a
// stable code so that the agent's main and the dynamic config controller can tell a bad flag from a port
// already taken without parsing messages; messages name the cause in one line.

import { CodedError } from '../../util/errors.js';

export type NodeAgentErrorCode =
  /** `--capacity` does not parse (unknown resource, bad quantity, repeated key, malformed pair). */
  | 'DKC_NODE_CAPACITY_INVALID'
  /** kubeReserved/systemReserved/evictionHard hold something allocatable cannot be computed from. */
  | 'DKC_NODE_RESERVATION_INVALID'
  /** The caller's AbortSignal ended a wait (registration backoff). */
  | 'DKC_NODE_ABORTED'
  /** The API server refused to register the Node for a reason retrying cannot fix. */
  | 'DKC_NODE_REGISTRATION_REJECTED'
  /** The address:port is taken by another listener. */
  | 'DKC_NODE_LISTEN_ADDRESS_IN_USE'
  /** The address is not one of this host's addresses. */
  | 'DKC_NODE_LISTEN_ADDRESS_NOT_AVAILABLE'
  /** Binding failed for another reason (permission, invalid address). */
  | 'DKC_NODE_LISTEN_FAILED'
  /** tlsCertFile/tlsPrivateKeyFile or the self-signed pair in the cert dir cannot be read or used. */
  | 'DKC_NODE_SERVING_CERT_INVALID'
  /** authentication.x509.clientCAFile cannot be read or holds no certificate. */
  | 'DKC_NODE_CLIENT_CA_INVALID'
  /** Creating the self-signed serving certificate failed. */
  | 'DKC_NODE_SERVING_CERT_GENERATE';

export class NodeAgentError extends CodedError<NodeAgentErrorCode> {
  override name = 'NodeAgentError';
}

export function isNodeAgentError(err: unknown, code?: NodeAgentErrorCode): err is NodeAgentError {
  return err instanceof NodeAgentError && (code === undefined || err.code === code);
}
