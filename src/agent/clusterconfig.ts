// The local KubeletConfiguration a node of a dkc cluster starts from, as `dkc up` writes it for its agents and
// `dkc fleet` for its simulated nodes: clients authenticate with certificates from the cluster's CA, requests are
// authorized by the API server (Webhook), and anonymous requests are refused. Pure.

export function defaultLocalConfig({ caFile }: { caFile: string }): string {
  return [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    'authentication:',
    '  anonymous:',
    '    enabled: false',
    '  x509:',
    `    clientCAFile: ${JSON.stringify(caFile)}`,
    'authorization:',
    '  mode: Webhook',
    '',
  ].join('\n');
}
