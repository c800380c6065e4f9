// The agent's own NodeConfigPolicy check, the one that holds whatever order requests came in: admission answers
// early, but only the node knows what it is about to run. A config is judged as it is loaded — at boot, for the
// assigned and the last-known-good checkpoint, beside decoding and validation — against the Deny policies that
// govern the node, comparing the node's local config with the candidate, both as the node runs them (flags applied,
// src/nodepolicy/flags.ts). A denied config is rejected as an invalid one is: the node runs last-known-good (or its
// local config), and status.config.error names the policy.
//
// The local config is the baseline because it does not depend on history: a config any sequence of assignments,
// relabels and policy changes could reach is judged the same way (ADR 22).
//
// Boot reads the governing policies from `<dynamic-config-dir>/store/meta/policies`, written by the running agent
// whenever they change (policywatch.ts), so boot makes no request of its own. The node daemon keeps the same
// snapshot (PolicySnapshot) and judges by the same verdict (nodeRefusal), against the kubelet's own files.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deepEqual } from '../../api/equal.js';
import type { KubeletConfiguration, ParsedKubeletFlags } from '../../kubeletconfig/index.js';
import type { ConfigSchema } from '../../nodepolicy/evaluate.js';
import { effectiveChange, ownConfigFlags, type NodeConfigFlags } from '../../nodepolicy/flags.js';
import type { NodeConfigPolicy } from '../../nodepolicy/spec.js';
import { nodeRefusal, type PolicyDenial } from '../../nodepolicy/verdict.js';
import { writeFileAtomic } from '../../util/atomicfile.js';
import { META_DIR, STORE_DIR } from './checkpoint.js';
import { logError } from './log.js';
import { errorMessage } from '../../util/errors.js';

export const POLICIES_FILE = 'policies';

/** A governing policy as the snapshot keeps it: its selector is no longer needed (it selects this node). */
type Kept = Omit<NodeConfigPolicy, 'selector'>;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function keep(p: NodeConfigPolicy): Kept {
  const k: Kept = { name: p.name, bounds: p.bounds, enforcement: p.enforcement };
  if (p.allowedFields) k.allowedFields = p.allowedFields;
  return k;
}

function restore(raw: unknown): NodeConfigPolicy | undefined {
  if (!isRecord(raw) || typeof raw['name'] !== 'string' || !isRecord(raw['bounds'])) return undefined;
  const fields = raw['allowedFields'];
  if (fields !== undefined && !(Array.isArray(fields) && fields.every((f) => typeof f === 'string'))) return undefined;
  const p: NodeConfigPolicy = {
    name: raw['name'],
    selector: [],
    bounds: raw['bounds'] as NodeConfigPolicy['bounds'],
    enforcement: raw['enforcement'] === 'Warn' ? 'Warn' : 'Deny',
  };
  if (fields !== undefined) p.allowedFields = fields;
  return p;
}

/** The snapshot's path under a --dynamic-config-dir. */
export function policiesPath(dynamicConfigDir: string): string {
  return join(dynamicConfigDir, STORE_DIR, META_DIR, POLICIES_FILE);
}

/** The policies in a snapshot; none when it is absent, and none (logged) when it cannot be read. */
async function readSnapshot(path: string): Promise<NodeConfigPolicy[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      logError(
        `cannot read ${path}, judging configs by no NodeConfigPolicy until the policies are listed, error: ${errorMessage(err)}`,
      );
    return [];
  }
  try {
    const doc = JSON.parse(text) as { policies?: unknown };
    const policies = Array.isArray(doc.policies) ? doc.policies.map(restore) : undefined;
    if (policies?.every((p) => p !== undefined)) return policies;
  } catch {
    // reported below
  }
  logError(`${path} is not a policy snapshot, judging configs by no NodeConfigPolicy until the policies are listed`);
  return [];
}

/**
 * The Deny policies that govern the node, as last seen: read from the snapshot at boot, taken from the watch while
 * running (policywatch.ts) and written down for the next boot whenever they change.
 */
export class PolicySnapshot {
  private constructor(
    private readonly path: string,
    private policies: NodeConfigPolicy[],
  ) {}

  /** The snapshot the last run wrote under a --dynamic-config-dir. */
  static async load(dynamicConfigDir: string): Promise<PolicySnapshot> {
    const path = policiesPath(dynamicConfigDir);
    return new PolicySnapshot(path, await readSnapshot(path));
  }

  /** The governing Deny policies, by name. */
  get governing(): readonly NodeConfigPolicy[] {
    return this.policies;
  }

  /** Takes the Deny policies that govern the node now; true when they changed (then they are also written to disk). */
  async update(governing: readonly NodeConfigPolicy[]): Promise<boolean> {
    const next = governing
      .filter((p) => p.enforcement === 'Deny')
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (deepEqual(next.map(keep), this.policies.map(keep))) return false;
    this.policies = next.map((p) => ({ ...p, selector: [] }));
    try {
      await writeFileAtomic(this.path, JSON.stringify({ policies: next.map(keep) }) + '\n');
    } catch (err) {
      logError(
        `failed to record the NodeConfigPolicies that govern the node in ${this.path}, error: ${errorMessage(err)}`,
      );
    }
    return true;
  }
}

/** The agent's gate: the snapshot's policies judged against the local config, both under the agent's own flags. */
export class PolicyGate {
  private readonly flags: NodeConfigFlags;

  private constructor(
    private readonly snapshot: PolicySnapshot,
    private readonly local: KubeletConfiguration,
    flags: ParsedKubeletFlags,
    private readonly schema: ConfigSchema | undefined,
  ) {
    this.flags = ownConfigFlags(flags);
  }

  /**
   * The gate over the snapshot the agent last wrote; `local` is the local config with the flags applied, `schema` the
   * node's kubelet minor's (KubeletVersion.schema(); 1.22's when absent).
   */
  static async load(
    dynamicConfigDir: string,
    local: KubeletConfiguration,
    flags: ParsedKubeletFlags,
    schema?: ConfigSchema,
  ): Promise<PolicyGate> {
    return new PolicyGate(await PolicySnapshot.load(dynamicConfigDir), local, flags, schema);
  }

  /** The Deny policies a config violates, or undefined when none governs or all allow it. Pure. */
  judge(candidate: KubeletConfiguration): PolicyDenial | undefined {
    return nodeRefusal(this.snapshot.governing, effectiveChange(this.local, candidate, this.flags), this.schema);
  }

  /** Takes the Deny policies that govern the node now (PolicySnapshot.update). */
  update(governing: readonly NodeConfigPolicy[]): Promise<boolean> {
    return this.snapshot.update(governing);
  }
}
