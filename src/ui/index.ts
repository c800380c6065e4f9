// The web view (`dkc ui`): a server that serves the page and proxies the API with the user's credentials, and the
// pure fleet and rollout logic the page and its tests share.

export { startUiServer, type UiServer, type UiServerOptions } from './server.js';
export { DEFAULT_ACCEPT_HOSTS, parseAcceptHosts } from './hosts.js';
export { messages, UiError } from './errors.js';
