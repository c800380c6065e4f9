// Who dkc's controllers are to the API: the user their client certificate names (RBAC's default roles grant it
// exactly what they use, admission knows it) and the Lease they elect a leader on. Constants only.

export const CONTROLLER_USER = 'system:dkc:controller';
export const LEADER_LEASE_NAMESPACE = 'kube-system';
export const LEADER_LEASE_NAME = 'dkc-controller';
