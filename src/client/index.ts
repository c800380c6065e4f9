// dkc's Kubernetes client: kubeconfig loading, a REST client with watch, informers and rate limiting.
// Depends on node built-ins only (plus `yaml`, loaded lazily for YAML kubeconfigs).

export {
  ApiError,
  ClientError,
  isApiError,
  isResourceExpired,
  reasonForCode,
  statusFromResponse,
  type ClientErrorCode,
} from './errors.js';
export { loadKubeconfig, resolveKubeconfig, type ClientConfig, type LoadKubeconfigOptions } from './kubeconfig.js';
export {
  PATCH_CONTENT_TYPES,
  RestClient,
  connectionPool,
  sharedConnectionPool,
  type CallOptions,
  type ListOptions,
  type PatchType,
  type Query,
  type QueryValue,
  type RequestOptions,
  type Response,
  type RestClientOptions,
  type WatchOptions,
} from './rest.js';
export { WatchDecoder, WatchStream, type WatchEvent, type WatchEventType } from './watch.js';
export {
  Informer,
  objectKey,
  type BackoffOptions,
  type InformerHandlers,
  type InformerOptions,
  type InformerStore,
  type KubeList,
  type KubeObject,
  type ListWatcher,
} from './informer.js';
export { TokenBucket, type RateLimiter } from './ratelimit.js';
export {
  CHANNEL_CHOICES,
  ConfigChannelError,
  channelFacts,
  chooseChannel,
  discoverChannel,
  mixedChannels,
  parseChannelChoice,
  serverVersionOf,
  type AssignmentsSeen,
  type ChannelChoice,
  type ChannelDecision,
  type ChannelFacts,
  type ConfigChannel,
} from './channel.js';
