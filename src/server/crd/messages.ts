// The words kube-apiserver uses for custom resources that fail their schema. The validation texts are
// kube-openapi's (k8s.io/kube-openapi/pkg/validation/errors) with `in` = "body", as apiextensions-apiserver
// wraps them into field errors; the structural-schema texts are apiextensions-apiserver's CRD validation.
// Users and scripts match on these strings, so they are reproduced exactly, in one place.

import { goQuote } from '../../gotext/quote.js';

const IN = 'body';

export const validationText = {
  type: (path: string, type: string, got: string) => `${path} in ${IN} must be of type ${type}: ${goQuote(got)}`,
  tooLongDetail: (max: number) => (max >= 0 ? `may not be longer than ${max}` : 'value is too long'),
  tooShort: (path: string, min: number) => `${path} in ${IN} should be at least ${min} chars long`,
  pattern: (path: string, pattern: string) => `${path} in ${IN} should match '${pattern}'`,
  multipleOf: (path: string, factor: string) => `${path} in ${IN} should be a multiple of ${factor}`,
  maximum: (path: string, max: string, exclusive: boolean) =>
    exclusive
      ? `${path} in ${IN} should be less than ${max}`
      : `${path} in ${IN} should be less than or equal to ${max}`,
  minimum: (path: string, min: string, exclusive: boolean) =>
    exclusive
      ? `${path} in ${IN} should be greater than ${min}`
      : `${path} in ${IN} should be greater than or equal to ${min}`,
  minItems: (path: string, min: number) => `${path} in ${IN} should have at least ${min} items`,
  minProperties: (path: string, min: number) => `${path} in ${IN} should have at least ${min} properties`,
  unique: (path: string) => `${path} in ${IN} shouldn't contain duplicates`,
  forbiddenProperty: (path: string, key: string) => `${path}.${key} in ${IN} is a forbidden property`,
  anyOf: (path: string) => `${goQuote(path)} must validate at least one schema (anyOf)`,
  oneOf: (path: string, valid: number) =>
    `${goQuote(path)} must validate one and only one schema (oneOf). ${valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`}`,
  not: (path: string) => `${goQuote(path)} must not validate the schema (not)`,
};

/** Embedded resources' TypeMeta, as apiextensions-apiserver's objectmeta validation words it. */
export const embeddedText = {
  mustBeString: 'must be a string',
  groupVersion: (v: string) => `unexpected GroupVersion string: ${v}`,
  mixedCase: 'may have mixed case, but should otherwise match: ',
  dns1035:
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
};

export const listTypeText = {
  mapItemsObjects: 'must be an object for an array of list-type map',
};

/** additionalPrinterColumns' jsonPath, as CRD validation words it. */
export const columnText = {
  empty: 'must not be empty',
  notSimple: 'must be a simple json path starting with .',
};

/** The warning (fieldValidation=Warn) or error text (Strict) for a field the schema does not declare. */
export const unknownField = (path: string): string => `unknown field ${goQuote(path)}`;

/** apiextensions-apiserver's structural-schema and CRD-schema rules, as its validation words them. */
export const structuralText = {
  schemaRequired: 'schemas are required',
  typeRequired: 'must not be empty for specified object fields',
  typeRequiredArray: 'must not be empty for specified array items',
  typeRequiredRoot: 'must not be empty at the root',
  rootMustBeObject: 'must be object at the root',
  rootAdditional: 'must not be used at the root',
  refForbidden: '$ref is not supported',
  typeNull: 'type cannot be set to null, use nullable as an alternative',
  notSupported: (keyword: string) => `${keyword} is not supported`,
  itemsArray: 'items must be a schema object and not an array',
  topLevelDefault: (property: string) => `must not be set in top-level ${property}`,
  mapTypeObject: 'must be object if x-kubernetes-map-type is specified',
  listTypeArray: 'must be array if x-kubernetes-list-type is specified',
  listMapKeysNeedMap: 'must be map if x-kubernetes-list-map-keys is non-empty',
  mapKeysRequired: 'must not be empty if x-kubernetes-list-type is map',
  mapItemsRequired: 'must have a schema if x-kubernetes-list-type is map',
  mapItemsObject: "must be object if parent array's x-kubernetes-list-type is map",
  mapKeysProperties: 'entries must all be names of item properties',
  mapKeyScalar: "must be a scalar type if parent array's x-kubernetes-list-type is map",
  mapKeysDuplicate: 'must not contain duplicate entries',
  mapKeyDefault: 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
  mapKeyNullable: 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
  listItemsNullable: (listType: string) => `cannot be nullable when x-kubernetes-list-type is ${listType}`,
  propertiesAndAdditional: 'additionalProperties and properties are mutual exclusive',
  uniqueItems: 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
  itemsRequired: 'must be specified',
  intOrStringExcludes: 'must be false if x-kubernetes-int-or-string is true',
  embeddedType: 'must be object if x-kubernetes-embedded-resource is true',
  embeddedAdditional: 'must not be used if x-kubernetes-embedded-resource is set',
  embeddedProperties:
    'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
  preserveFalse: 'must be true or undefined',
  mustBeString: 'must be string',
  mustBeObject: 'must be object',
  metadataRestricted:
    'must not specify anything other than name and generateName, but metadata is implicitly specified',
  nestedEmpty: 'must be empty to be structural',
  nestedUndefined: 'must be undefined to be structural',
  nestedFalse: 'must be false to be structural',
  nestedMetadata: 'must not be specified in a nested context',
  defaultUnknownFields: 'must not have unknown fields',
  invalidPattern: (err: string) => `must be a valid regular expression, but isn't: ${err}`,
  supportedTypes: ['array', 'boolean', 'integer', 'number', 'object', 'string'],
};

/** CustomResourceDefinition serving: the CRD's own validation, its conditions, installing the shipped ones. */
export const msg = {
  dns1035:
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
  kindIsListKind: 'kind and listKind may not be the same or have the same name',
  schemaRequired: 'schemas are required',
  versionsRequired: 'must have exactly one version marked as storage version',
  oneStorageVersion: 'must have exactly one version marked as storage version',
  oneServedVersion: 'must have at least one version marked as served',
  groupNeedsDot: 'should be a domain with at least one dot',
  nameIsPluralGroup: 'must be spec.names.plural+"."+spec.group',
  immutable: 'field is immutable',
  storedVersionMissing: (v: string) => `must appear in spec.versions: ${v}`,
  namesAccepted: { reason: 'NoConflicts', message: 'no conflicts found' },
  established: { reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
  pluralInUse: (plural: string) => `"${plural}" is already in use`,
  kindInUse: (kind: string) => `"${kind}" is already in use`,
  notAccepted: { reason: 'NotAccepted', message: 'not all names are accepted' },
  installing: (name: string) => `installing CustomResourceDefinition ${name}`,
  installFailed: (file: string, why: string) => `cannot install the CustomResourceDefinitions of ${file}: ${why}`,
  notACrd: (file: string) => `${file}: not a CustomResourceDefinition (apiextensions.k8s.io/v1)`,
  approval: {
    missing: `protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
    invalid:
      'protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    bypassed: (value: string) => `not approved: ${goQuote(value)}`,
    approved: (value: string) => `approved in ${value}`,
  },
  migrated: (count: number, crd: string, prefix: string) =>
    `moved ${count} ${crd} object(s) to their own keys under ${prefix}`,
  migrationBothKeys: (legacy: string, current: string) =>
    `${legacy} and ${current} both exist: serving ${current} and leaving ${legacy} alone (a server of an older version is writing to this store)`,
};
