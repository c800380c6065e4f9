// The audit log (`--audit-log-path`): one JSON line per request in audit.k8s.io/v1 Event form at the Metadata level —
// who (and who impersonated whom), which verb on which object, and the response code. Enough to answer "who pointed
// node-7 at this config?" with `grep '"name":"node-7"' | grep '"verb":"patch"'`. Request and response bodies are
// never recorded: ConfigMaps may hold secrets an operator did not mean to copy into a log.

import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { UserInfo } from '../authz.js';
import type { RequestInfo } from '../requestinfo.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { formatMicroTime } from '../../util/clock.js';

export interface AuditRecord {
  user?: UserInfo;
  impersonatedUser?: UserInfo;
  info?: RequestInfo;
  method: string;
  requestURI: string;
  sourceIP: string;
  userAgent?: string;
  code: number;
  received: Date;
}

function userJson(u: UserInfo): Record<string, unknown> {
  return { username: u.name, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups };
}

export function auditEvent(r: AuditRecord, now = systemClock.now()): Record<string, unknown> {
  const ev: Record<string, unknown> = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: randomUUID(),
    stage: 'ResponseComplete',
    requestURI: r.requestURI,
    verb: r.info?.verb ?? r.method.toLowerCase(),
    user: r.user ? userJson(r.user) : { username: 'system:anonymous', groups: ['system:unauthenticated'] },
  };
  if (r.impersonatedUser) ev['impersonatedUser'] = userJson(r.impersonatedUser);
  ev['sourceIPs'] = [r.sourceIP];
  if (r.userAgent) ev['userAgent'] = r.userAgent;
  const i = r.info;
  if (i?.isResourceRequest) {
    const ref: Record<string, string> = { resource: i.resource };
    if (i.namespace && i.resource !== 'namespaces') ref['namespace'] = i.namespace;
    const name = i.resource === 'namespaces' && !i.name ? i.namespace : i.name;
    if (name) ref['name'] = name;
    ref['apiGroup'] = i.apiGroup;
    ref['apiVersion'] = i.apiVersion;
    if (i.subresource) ref['subresource'] = i.subresource;
    ev['objectRef'] = ref;
  }
  ev['responseStatus'] = { metadata: {}, code: r.code };
  ev['requestReceivedTimestamp'] = formatMicroTime(r.received);
  ev['stageTimestamp'] = formatMicroTime(now);
  return ev;
}

export class AuditLog {
  private readonly out: WriteStream;

  constructor(
    path: string,
    /** Wall time, for each event's stageTimestamp. */
    private readonly clock: Clock = systemClock,
  ) {
    // Appending keeps the history across restarts, as a log file that rotation tools manage should.
    this.out = createWriteStream(path, { flags: 'a', mode: 0o600 });
    this.out.on('error', () => {
      /* a full disk must not take the API server down with it */
    });
  }

  record(r: AuditRecord): void {
    this.out.write(JSON.stringify(auditEvent(r, this.clock.now())) + '\n');
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.out.end(() => resolve()));
  }
}
