// The operator's config workflow (`dkc config diff|lint|render`): sources (files, ConfigMaps, nodes), the
// commands, and how they print.

export {
  diff,
  lint,
  render,
  processIo,
  checkLayer,
  classify,
  lintFails,
  type Io,
  type ExitCode,
  type DiffFlags,
  type LintFlags,
  type RenderFlags,
  type ConnectionFlags,
} from './commands.js';
export { parseSource, sourceName, chooseKey, readSource, readDropIns, DEFAULT_KEY, type SourceRef } from './sources.js';
export { valueText, diffLines, lintLines, type ClassifiedChange, type LintReport } from './format.js';
export { ConfigCommandError, messages, type ConfigErrorCode } from './errors.js';
