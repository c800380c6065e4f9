// What an admission message may tell the requester about the nodes a request reaches, asked of the server's
// authorizer chain as the requesting user (as ConfigMapReferences asks `get` on what a request names): a node's name
// and its kubelet's version only to one who may `list nodes` (otherwise how many), and a node's running config value
// only to one who may read where it came from — its active ConfigMap (`get` on it), its /configz (`get nodes/proxy`
// on that node, the API server's path there), or nothing for the kubelet's defaults, which are no secret
// (docs/adr/0021-who-may-name-a-configmap-as-config.md). Answers are kept for the one request.

import type { AuthorizationAttributes, Authorizer, UserInfo } from '../authz.js';

/** Where a node's running config was read from, for whoever judged a change against it. */
export type RunningOrigin =
  { kind: 'configMap'; namespace: string; name: string } | { kind: 'configz'; node: string } | { kind: 'defaults' };

const attributes = (
  user: UserInfo,
  verb: string,
  resource: string,
  o: { namespace?: string; name?: string; subresource?: string } = {},
): AuthorizationAttributes => {
  const namespace = o.namespace ?? '';
  const name = o.name ?? '';
  const base = namespace ? `/api/v1/namespaces/${namespace}/${resource}` : `/api/v1/${resource}`;
  return {
    user,
    verb,
    isResourceRequest: true,
    path: [base, name, o.subresource ?? ''].filter(Boolean).join('/'),
    apiGroup: '',
    apiVersion: 'v1',
    resource,
    subresource: o.subresource ?? '',
    namespace,
    name,
  };
};

/** The requester's rights to be told things, each asked once per request. */
export class Audience {
  private readonly answers = new Map<string, Promise<boolean>>();

  constructor(
    private readonly authorizer: Authorizer,
    private readonly user: UserInfo,
  ) {}

  private may(attrs: AuthorizationAttributes): Promise<boolean> {
    const id = `${attrs.verb} ${attrs.path}`;
    let p = this.answers.get(id);
    if (!p) {
      p = Promise.resolve(this.authorizer.authorize(attrs)).then((d) => d.decision === 'allow');
      this.answers.set(id, p);
    }
    return p;
  }

  /** Whether nodes may be named (with their kubelet versions) to the requester. */
  mayListNodes(): Promise<boolean> {
    return this.may(attributes(this.user, 'list', 'nodes'));
  }

  /** Whether a running value read from `origin` may be quoted to the requester. */
  mayRead(origin: RunningOrigin): Promise<boolean> {
    switch (origin.kind) {
      case 'defaults':
        return Promise.resolve(true);
      case 'configMap':
        return this.may(attributes(this.user, 'get', 'configmaps', origin));
      case 'configz':
        return this.may(attributes(this.user, 'get', 'nodes', { name: origin.node, subresource: 'proxy' }));
    }
  }
}
