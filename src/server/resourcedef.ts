// What the server knows of a resource it serves, described once: identity (group, version, kind, plural, short
// names), scope, verbs, subresources, the field selectors it supports, its Table columns, and its create-time
// defaults. The built-in resources, RBAC's, the reviews and CustomResourceDefinitions each implement it; the
// catalogue of those served is src/server/registry.ts.

import type { FieldError } from '../api/field.js';
import type { KubeObject } from '../api/types.js';
import type { DeleteOptions } from './deletion.js';
import type { ResourceStorage, WriteContext } from './resources.js';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

export interface ResourceDef {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  verbs: Verb[];
  /** Writes to the main resource keep the stored status; writes to /status change nothing but status. */
  statusSubresource: boolean;
  /** Node proxy: `/proxy` forwards to the object's endpoint. */
  proxySubresource: boolean;
  /** `/scale`: an autoscaling/v1 Scale of spec.replicas, status.replicas and spec.selector (src/server/scale.ts). */
  scaleSubresource?: boolean;
  /** Field paths accepted in fieldSelector, beyond metadata.name and metadata.namespace. */
  fields: Record<string, (obj: KubeObject) => string | undefined>;
  columns: TableColumn[];
  row(obj: KubeObject, now: number): unknown[];
  /** Top-level struct fields that Go's encoding always emits (as `{}` when empty); kept present in stored objects. */
  structFields?: string[];
  /** Create-time defaults the API server fills in (PrepareForCreate). */
  prepareForCreate?(obj: KubeObject): void;
  /** Update-time resets beyond the generic ones (PrepareForUpdate), by subresource ('' for the main resource). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, subresource: string): void;
  /** `/finalize`, written by PUT only: the one way to change a Namespace's spec.finalizers. */
  finalizeSubresource?: boolean;
  /** A DELETE of this kind where kube-apiserver's differs from the generic one (Namespaces, Pods). */
  deletion?: DeletionStrategy;
  /** Objects that exist from the first start. */
  builtin?: KubeObject[];
  /** Objects of this resource that may not be deleted, with kube-apiserver's reason. */
  undeletable?: Record<string, string>;
  /** Discovery categories (`kubectl get all`, `kubectl get dkc`). */
  categories?: string[];
  /** metadata.generation: 1 on create, +1 on every change outside metadata and status. */
  generation?: boolean;
  /** metadata.annotations move the generation too (a Deployment's, which its ReplicaSets copy). */
  annotationsMoveGeneration?: boolean;
  /** Validation in place of src/api/validation's rules for the kind (Pods, CustomResourceDefinitions, custom resources). */
  validation?: {
    create(obj: KubeObject): FieldError[];
    update(obj: KubeObject, old: KubeObject): FieldError[];
  };
  /** A custom resource: served from a CustomResourceDefinition rather than built in. */
  custom?: CustomResourceBehaviour;
  /** What the emulated release's registry strategy does beyond the generic rules (a Node at 1.24 and later). */
  strategy?: ResourceStrategy;
  /**
   * Subresources answered by a handler of their own, by name (a Pod's `binding` and `eviction`), POST only; the
   * name '' is a create on the collection itself (the legacy `bindings`).
   */
  actions?: Record<string, SubresourceAction>;
}

/** One POST to an action subresource, decoded. */
export interface ActionRequest {
  namespace: string;
  /** The name in the URL ('' for a collection's action). */
  name: string;
  body: KubeObject;
  ctx: WriteContext;
  /** The storage of a served resource (the Pod's own, its namespace's PodDisruptionBudgets). */
  storageOf(group: string, version: string, plural: string): ResourceStorage | undefined;
  /** Runs admission for this request as a CREATE of the subresource on `name`, with `body` as the object. */
  admit(name: string): Promise<void>;
  /** RFC 3339 time of the request. */
  now: string;
}

export interface SubresourceAction {
  /** Discovery's entry: the kind served there, and its group and version when not the resource's own. */
  kind: string;
  group?: string;
  version?: string;
  /** Does the work; the handler answers 201 with a Success Status. */
  run(request: ActionRequest): Promise<void>;
}

/**
 * What a DELETE does: store this object and keep it (marked for deletion), answer the object unchanged, or undefined
 * for the generic rule (gone, or marked while metadata.finalizers names anything).
 */
export type DeleteDecision = { store: KubeObject } | { keep: true } | undefined;

export interface DeletionStrategy {
  /** `now` is an RFC 3339 time; `options` the request's DeleteOptions (a Pod's grace period comes from them). */
  onDelete(current: KubeObject, now: string, options: DeleteOptions): DeleteDecision;
  /** Whether an update of an object being deleted may remove it, beyond the generic rule (no metadata.finalizers). */
  mayGoByUpdate(next: KubeObject): boolean;
}

/** kube-apiserver's PrepareForCreate/PrepareForUpdate resets and WarningsOnCreate/OnUpdate, where they differ by release. */
export interface ResourceStrategy {
  /** Resets what the release does not keep, in the object as it will be stored; `old` is absent on create. */
  prepare(obj: KubeObject, old: KubeObject | undefined, subresource: string): void;
  /** The main resource's warnings for the object as it will be stored. */
  warnings(obj: KubeObject): string[];
}

/** What a served version of a CustomResourceDefinition adds to the generic storage. */
export interface CustomResourceBehaviour {
  /** The CRD's uid: a re-created CRD of the same name is another resource. */
  crdUid: string;
  /** The apiVersion objects are stored in (the CRD's storage version). */
  storageApiVersion: string;
  /** Fills schema defaults in place. */
  applyDefaults(obj: Record<string, unknown>): void;
  /** Removes the fields the schema does not declare; returns their paths. */
  prune(obj: Record<string, unknown>): string[];
  /** The schema's field errors for an object (after pruning and defaulting). */
  validate(obj: Record<string, unknown>): FieldError[];
  /** The version's OpenAPI schema, as published in /openapi/v3 (and the name it is published under). */
  openapi: { name: string; schema: Record<string, unknown> };
}

export function apiVersionOf(def: ResourceDef): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}
