// Who the controllers are to the API: the user their client certificate names (RBAC's default roles grant it exactly
// what they use) and the Lease they elect a leader on. A module of constants, cheap for the server's RBAC to import.

export const CONTROLLER_USER = 'system:dkc:controller';
export const LEADER_LEASE_NAMESPACE = 'kube-system';
export const LEADER_LEASE_NAME = 'dkc-controller';
