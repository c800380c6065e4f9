// The controller's log lines: upstream's `kubelet config controller: ` prefix, and a cap on their length. Details
// can quote what came from disk (a checkpoint record that does not decode is quoted whole); a log line carries at
// most the first few hundred bytes of such text. A config payload is never quoted: its decode errors name the
// checkpoint file, the field or the line (src/kubeletconfig/codec.ts).

import { clip } from '../../util/clip.js';
import { klog } from '../../util/klog.js';

export const LOG_PREFIX = 'kubelet config controller: ';

export const log = (msg: string): void => klog.depth(1, 'info', LOG_PREFIX + clip(msg));
export const logWarning = (msg: string): void => klog.depth(1, 'warning', LOG_PREFIX + clip(msg));
export const logError = (msg: string): void => klog.depth(1, 'error', LOG_PREFIX + clip(msg));
