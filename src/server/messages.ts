// The server's own words about request bodies and stored objects that are too large or too deep. Texts that mirror
// kube-apiserver's (the etcd size error) are reproduced exactly: clients match on them.

export const bodyText = {
  tooDeep: (what: string, limit: number) => `${what} is nested more than ${limit} levels deep`,
  tooManyYamlNodes: (what: string, limit: number) => `${what} has more than ${limit} YAML nodes`,
  tooManyYamlTokens: (what: string, limit: number) => `${what} has more than ${limit} YAML tokens`,
  yamlParse: (what: string, detail: string) => `${what}: yaml parse error: ${detail}`,
  duplicateKey: 'Map keys must be unique',
  multipleDocuments: 'Source contains multiple documents; please use YAML.parseAllDocuments()',
};
