// The cluster's certificates and the kubeconfigs that carry them. Importing this entry point loads the
// X.509 library; code that only writes kubeconfigs should import './kubeconfig.js' directly.

export { PkiError, type PkiErrorCode } from './errors.js';
export {
  assertKeyMatchesCert,
  createCA,
  issueCert,
  leafIssuer,
  newLeafKeyPair,
  parseCertIdentity,
  selfSignedServing,
  type CAOptions,
  type CertIdentity,
  type CertKeyPem,
  type CertUsage,
  type IssueOptions,
  type LeafIssuer,
  type LeafKeyPair,
  type SelfSignedServing,
} from './certs.js';
export {
  ADMIN_COMMON_NAME,
  CA_COMMON_NAME,
  KUBELET_CLIENT_COMMON_NAME,
  MASTERS_GROUP,
  ensureClusterPKI,
  type ClusterPKI,
  type ClusterPKIOptions,
  type ClusterPKIPaths,
} from './cluster.js';
export {
  renderKubeconfig,
  renderTokenKubeconfig,
  writeKubeconfig,
  writeTokenKubeconfig,
  type CertKubeconfigOptions,
  type TokenKubeconfigOptions,
} from './kubeconfig.js';
