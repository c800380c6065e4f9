// The serving certificate of the agent's HTTPS endpoint: tlsCertFile/tlsPrivateKeyFile when configured,
// otherwise a self-signed pair kept in `<certDir>/kubelet.crt|kubelet.key` and minted only when missing,
// as the kubelet does. Minting needs the X.509 library (~250 ms to load), so src/pki is imported lazily:
// a restart that finds its pair on disk never loads it.

import { mkdir, readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { writeFileAtomic } from '../../util/atomicfile.js';
import { klog } from '../../util/klog.js';
import { NodeAgentError } from './errors.js';
import { errorMessage } from '../../util/errors.js';
import { readFileIfPresent } from '../../util/optionalfile.js';

export const SELF_SIGNED_CERT_FILE = 'kubelet.crt';
export const SELF_SIGNED_KEY_FILE = 'kubelet.key';

export interface ServingCertOptions {
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  certDir: string;
  /** Names the self-signed certificate is valid for; the first one names it. */
  hostnames: readonly string[];
  ips?: readonly string[];
}

export interface ServingCert {
  certPem: string;
  keyPem: string;
  certFile: string;
  keyFile: string;
  /** True when this call minted the self-signed pair. */
  generated: boolean;
}

function certError(message: string, cause?: unknown): NodeAgentError {
  return new NodeAgentError('DKC_NODE_SERVING_CERT_INVALID', message, cause === undefined ? undefined : { cause });
}

/** Fails when the pair cannot serve TLS (unparsable PEM, key not matching the certificate). */
function checkPair(certPem: string, keyPem: string, certFile: string, keyFile: string): void {
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (err) {
    throw certError(`cannot use serving certificate ${certFile} with key ${keyFile}: ${errorMessage(err)}`, err);
  }
}

async function readConfigured(certFile: string, keyFile: string): Promise<ServingCert> {
  if (certFile === '' || keyFile === '') {
    throw certError('tlsCertFile and tlsPrivateKeyFile must be set together');
  }
  const read = async (path: string, what: string): Promise<string> => {
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      throw certError(`cannot read ${what} ${path}: ${errorMessage(err)}`, err);
    }
  };
  const [certPem, keyPem] = await Promise.all([read(certFile, 'tlsCertFile'), read(keyFile, 'tlsPrivateKeyFile')]);
  checkPair(certPem, keyPem, certFile, keyFile);
  return { certPem, keyPem, certFile, keyFile, generated: false };
}

/** The configured pair, or the self-signed one in certDir (created on first use). */
export async function loadOrCreateServingCert(options: ServingCertOptions): Promise<ServingCert> {
  if (options.tlsCertFile !== '' || options.tlsPrivateKeyFile !== '') {
    return readConfigured(options.tlsCertFile, options.tlsPrivateKeyFile);
  }
  const certFile = join(options.certDir, SELF_SIGNED_CERT_FILE);
  const keyFile = join(options.certDir, SELF_SIGNED_KEY_FILE);
  let existing: [string | undefined, string | undefined];
  try {
    existing = await Promise.all([readFileIfPresent(certFile), readFileIfPresent(keyFile)]);
  } catch (err) {
    throw certError(`cannot read the serving certificate in ${options.certDir}: ${errorMessage(err)}`, err);
  }
  const [certPem, keyPem] = existing;
  if (certPem !== undefined && keyPem !== undefined) {
    checkPair(certPem, keyPem, certFile, keyFile);
    return { certPem, keyPem, certFile, keyFile, generated: false };
  }

  const ips = [...(options.ips ?? [])];
  const hostnames: string[] = [];
  for (const h of options.hostnames) (isIP(h) !== 0 ? ips : hostnames).push(h);
  let minted: { certPem: string; keyPem: string };
  try {
    const { selfSignedServing } = await import('../../pki/index.js');
    minted = await selfSignedServing(hostnames, ips);
  } catch (err) {
    throw new NodeAgentError(
      'DKC_NODE_SERVING_CERT_GENERATE',
      `cannot create a self-signed serving certificate: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  try {
    await mkdir(options.certDir, { recursive: true, mode: 0o755 });
    // Key first: a crash between the two writes leaves a key without a certificate, which the next start
    // treats as missing and mints again, never a certificate paired with a stale key.
    await writeFileAtomic(keyFile, minted.keyPem, 0o600);
    await writeFileAtomic(certFile, minted.certPem, 0o644);
  } catch (err) {
    throw new NodeAgentError(
      'DKC_NODE_SERVING_CERT_GENERATE',
      `cannot write the self-signed serving certificate to ${options.certDir}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
  klog.info('Generated self-signed serving certificate', { cert: certFile, key: keyFile });
  return { certPem: minted.certPem, keyPem: minted.keyPem, certFile, keyFile, generated: true };
}
