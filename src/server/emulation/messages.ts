// What the emulated releases say, in kube-apiserver's words where it has them.

export const messages = {
  invalidVersion: (text: string, oldest: string, newest: string): string =>
    `invalid --emulated-version ${JSON.stringify(text)}: must be a Kubernetes release MAJOR.MINOR from ${oldest} to ${newest}`,
  /** pkg/registry/core/node/strategy.go before 1.26 (dynamicKubeletConfigIsDeprecatedWarning). */
  configSourceDeprecated: 'spec.configSource: deprecated in v1.22, support removal is planned in v1.23',
  /** pkg/registry/core/node/strategy.go from 1.26 (fieldIsDeprecatedWarnings). */
  configSourceRemoved: 'spec.configSource: the feature is removed',
};
