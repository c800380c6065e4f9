// A node's assignment object deleted and made again: a Node deleted and re-created takes its NodeConfig with it (the
// garbage collector follows the owner reference), and the NodeConfig the daemon then creates again, owned by the new
// Node, assigns nothing — a node may not create one that assigns anything. Read as an assignment, that empty spec
// would reset the kubelet to the node's own files, at once or at the daemon's next start, although nobody asked for
// it. So the daemon remembers the uid of the object it follows; when it finds a new object that assigns nothing, it
// keeps the config it was assigned before (the kubelet goes on running it, and status.config says so) until the new
// object assigns something. The record is kept on disk so that a restart of the daemon decides the same.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NODE_CONFIGS_PATH, newNodeConfig } from '../api/dkc/nodeconfig.js';
import { InternalError } from '../api/configstatus.js';
import type { Node, NodeConfigSource } from '../api/types.js';
import { isApiError } from '../client/errors.js';
import type { RestClient } from '../client/index.js';
import { writeFileAtomic } from '../util/atomicfile.js';
import { errorMessage } from '../util/errors.js';
import type { AssignmentChannel, AssignmentObject, AssignmentWatch } from '../agent/dynamicconfig/assignment.js';
import { log, logError, logWarning } from '../agent/dynamicconfig/log.js';
import { describeSource } from '../agent/dynamicconfig/source.js';
import { messages } from './messages.js';

export const OBJECT_FILE = 'assignment-object.json';

/** The object the daemon last followed, and the assignment it keeps for it when that object assigns nothing. */
export interface ObjectRecord {
  uid: string;
  kept?: NodeConfigSource;
}

export interface FollowInput {
  /** The object's spec.configSource (undefined: nothing assigned). */
  spec: NodeConfigSource | undefined;
  /** The object's metadata.uid, when known. */
  uid: string | undefined;
  record: ObjectRecord | undefined;
  /** The daemon's assigned record now. */
  assigned: NodeConfigSource | undefined;
}

/** Which assignment the daemon follows, and the record to keep. Pure. */
export function decideFollowed(i: FollowInput): {
  source: NodeConfigSource | undefined;
  record: ObjectRecord | undefined;
} {
  if (!i.uid) return { source: i.spec, record: i.record };
  // An assignment on the object is followed, whatever the object's history.
  if (i.spec) return { source: i.spec, record: { uid: i.uid } };
  // Made again since (perhaps more than once) and still assigning nothing: what the node was assigned stays.
  if (i.record?.kept) return { source: i.record.kept, record: { uid: i.uid, kept: i.record.kept } };
  if (i.record && i.record.uid !== i.uid && i.assigned)
    return { source: i.assigned, record: { uid: i.uid, kept: i.assigned } };
  return { source: undefined, record: { uid: i.uid } };
}

export async function readObjectRecord(dir: string): Promise<ObjectRecord | undefined> {
  try {
    const r = JSON.parse(await readFile(join(dir, OBJECT_FILE), 'utf8')) as Partial<ObjectRecord> | null;
    return r && typeof r.uid === 'string' ? (r as ObjectRecord) : undefined;
  } catch {
    return undefined; // none, or unreadable: the next object seen is taken as the one followed
  }
}

export function writeObjectRecord(dir: string, r: ObjectRecord): Promise<void> {
  return writeFileAtomic(join(dir, OBJECT_FILE), JSON.stringify(r) + '\n', 0o600);
}

/** How long the daemon waits between attempts to create its NodeConfig again: doubling from 500 ms to 10 s. */
export function recreateDelayMs(attempt: number): number {
  return Math.min(10_000, 500 * 2 ** Math.min(attempt, 5));
}

export interface RecreationDeps {
  /** The daemon's records directory. */
  dir: string;
  client: Pick<RestClient, 'create'>;
  channel: AssignmentChannel;
  /** The uid of the Node as the daemon found it at start. */
  nodeUid: string | undefined;
  signal: AbortSignal;
  /** The NodeConfig was created again: publish into it what the old one held. */
  onRecreated(): void;
}

/**
 * Follows the assignment through re-creations of the object that carries it (decideFollowed), and on the NodeConfig
 * channel creates the node's NodeConfig again, owned by the Node as it is now, once that Node is there: when the
 * NodeConfig is deleted, or a Node with a new uid appears. Retried, paced by recreateDelayMs, until done or stopped.
 */
export class Recreation {
  private record: ObjectRecord | undefined;
  private assigned: NodeConfigSource | undefined;
  private node: AssignmentObject | undefined;
  private nodeUid: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private watch: AssignmentWatch | undefined;

  constructor(private readonly d: RecreationDeps) {
    this.nodeUid = d.nodeUid;
  }

  async load(): Promise<void> {
    this.record = await readObjectRecord(this.d.dir);
  }

  /** The daemon's assigned record, as its last decision read it. */
  setAssigned(src: NodeConfigSource | undefined): void {
    this.assigned = src;
  }

  /** The source the sync follows; throws, as AssignmentWatch.source(), while the object is not in the cache. */
  follow(watch: AssignmentWatch | undefined): NodeConfigSource | undefined {
    if (!watch) throw new Error('the assignment is not followed yet');
    const spec = watch.source();
    const uid = watch.object()?.metadata?.['uid'];
    const d = decideFollowed({
      spec,
      uid: typeof uid === 'string' && uid !== '' ? uid : undefined,
      record: this.record,
      assigned: this.assigned,
    });
    if (d.record && JSON.stringify(d.record) !== JSON.stringify(this.record)) {
      if (d.record.kept && !this.record?.kept)
        logWarning(messages.keptAcrossRecreation(watch.what, describeSource(d.record.kept)));
      this.record = d.record;
      // Not waited for: a record lost to a crash is made the same way again from the same facts.
      void writeObjectRecord(this.d.dir, d.record).catch((err: unknown) =>
        logError(`${InternalError}, error: ${errorMessage(err)}`),
      );
    }
    return d.source;
  }

  /**
   * The kept source when `ref` names it: the node may read only the ConfigMap its NodeConfig assigns (the Node
   * authorizer's edge), so a kept config is served from its checkpoint, not downloaded (nor followed through edits).
   */
  keptFor(ref: { namespace: string; name: string; kubeletConfigKey: string }): NodeConfigSource | undefined {
    const cm = this.record?.kept?.configMap;
    return cm && cm.namespace === ref.namespace && cm.name === ref.name && cm.kubeletConfigKey === ref.kubeletConfigKey
      ? this.record!.kept
      : undefined;
  }

  /** The watch of the object that carries the assignment. */
  watching(watch: AssignmentWatch): void {
    this.watch = watch;
  }

  /** The node's Node as its informer has it now. */
  nodeSeen(node: AssignmentObject): void {
    this.node = node;
    const uid = node.metadata?.['uid'] as string | undefined;
    if (uid === this.nodeUid) return;
    this.nodeUid = uid;
    this.schedule(0);
  }

  /** The NodeConfig the daemon follows was deleted. */
  objectDeleted(): void {
    this.schedule(0);
  }

  private schedule(attempt: number): void {
    if (this.d.channel.kind !== 'nodeconfig' || this.d.signal.aborted) return;
    if (this.timer) clearTimeout(this.timer);
    this.attempt = attempt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.recreate();
    }, recreateDelayMs(attempt));
  }

  private async recreate(): Promise<void> {
    const node = this.node;
    const nodeUid = node?.metadata?.['uid'];
    if (!node || typeof nodeUid !== 'string') return; // the Node's return schedules this again
    const object = this.watch?.object();
    if (object) {
      const owners = (object.metadata?.['ownerReferences'] as { uid?: string }[] | undefined) ?? [];
      // Owned by a Node that is gone: the garbage collector deletes it, and its deletion brings this back.
      if (!owners.some((o) => o.uid === nodeUid)) this.schedule(this.attempt + 1);
      return;
    }
    try {
      await this.d.client.create(NODE_CONFIGS_PATH, newNodeConfig(node as Node), { signal: this.d.signal });
    } catch (err) {
      if (this.d.signal.aborted) return;
      // 409: one is there that the cache has not shown yet, or one not yet deleted: looked at again.
      if (!isApiError(err, 409)) logWarning(messages.recreateFailed(errorMessage(err)));
      this.schedule(this.attempt + 1);
      return;
    }
    log(messages.recreated(node.metadata?.name ?? ''));
    this.d.onRecreated();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
