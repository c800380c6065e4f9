// Writing kubeconfig files for the cluster dkc creates: the admin's (client certificate) and token-based
// ones for automation. The output is the plain v1 Config that kubectl, client-go and dkc's own client
// read; credentials are embedded as *-data fields so that a kubeconfig is one self-contained file.
// Kept apart from certs.ts so that writing a kubeconfig does not load the X.509 library.

import { stringify } from 'yaml';
import { writeFileAtomic } from '../util/atomicfile.js';

interface KubeconfigCommon {
  /** The API server's URL, e.g. https://127.0.0.1:6443. */
  server: string;
  /** PEM of the CA that signed the API server's serving certificate; omitted → system trust. */
  caPem?: string;
  /** Skips server certificate verification; for throwaway test clusters only. */
  insecureSkipTLSVerify?: boolean;
  /** Names of the entries; default user `admin`, cluster `dkc`, context `<user>@<cluster>`. */
  user?: string;
  cluster?: string;
  context?: string;
  /** Default namespace of the context. */
  namespace?: string;
  /** 'yaml' (default) or 'json'. */
  format?: 'yaml' | 'json';
}

export interface CertKubeconfigOptions extends KubeconfigCommon {
  certPem: string;
  keyPem: string;
}

export interface TokenKubeconfigOptions extends KubeconfigCommon {
  token: string;
}

function b64(pem: string): string {
  return Buffer.from(pem, 'utf8').toString('base64');
}

function render(common: KubeconfigCommon, user: Record<string, string>): string {
  const userName = common.user ?? 'admin';
  const clusterName = common.cluster ?? 'dkc';
  const contextName = common.context ?? `${userName}@${clusterName}`;
  const cluster: Record<string, string | boolean> = { server: common.server };
  if (common.caPem !== undefined) cluster['certificate-authority-data'] = b64(common.caPem);
  if (common.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
  const context: Record<string, string> = { cluster: clusterName, user: userName };
  if (common.namespace !== undefined) context['namespace'] = common.namespace;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: clusterName, cluster }],
    users: [{ name: userName, user }],
    contexts: [{ name: contextName, context }],
    'current-context': contextName,
  };
  // JSON is also YAML; processes that restart often (the node agent) read it without loading a YAML parser.
  if (common.format === 'json') return JSON.stringify(doc, null, 2) + '\n';
  // Long base64 strings must stay on one line: some older parsers mishandle folded scalars.
  return stringify(doc, { lineWidth: 0 });
}

/** The kubeconfig YAML for a client-certificate user. */
export function renderKubeconfig(options: CertKubeconfigOptions): string {
  return render(options, { 'client-certificate-data': b64(options.certPem), 'client-key-data': b64(options.keyPem) });
}

/** The kubeconfig YAML for a bearer-token user. */
export function renderTokenKubeconfig(options: TokenKubeconfigOptions): string {
  return render(options, { token: options.token });
}

/** Writes a client-certificate kubeconfig atomically, readable by its owner only (it holds a key). */
export async function writeKubeconfig(path: string, options: CertKubeconfigOptions): Promise<void> {
  await writeFileAtomic(path, renderKubeconfig(options), 0o600);
}

/** Writes a bearer-token kubeconfig atomically, readable by its owner only. */
export async function writeTokenKubeconfig(path: string, options: TokenKubeconfigOptions): Promise<void> {
  await writeFileAtomic(path, renderTokenKubeconfig(options), 0o600);
}
