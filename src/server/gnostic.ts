// The wire form of /openapi/v2: a Swagger 2.0 document as gnostic's openapi_v2.Document protobuf message, the only
// form kubectl reads there. Only the parts kubectl consults are encoded (swagger, info, paths, definitions), with
// the field numbers of gnostic's openapiv2/OpenAPIv2.proto; of a path, its patch operation and parameters. Values gnostic holds as `Any` (defaults, enums,
// examples, vendor extensions) travel as YAML text, which kubectl parses back; JSON is YAML, so they are JSON.
//
// protobufjs is loaded on the first document only: most processes never serve one.

import { createRequire } from 'node:module';
import type * as Protobuf from 'protobufjs';

/** A Swagger 2.0 schema object, as JSON. */
export type SwaggerSchema = { [key: string]: unknown };

/**
 * A Swagger 2.0 path item, as far as it is encoded: its patch operation (tags, description, operationId, consumes,
 * produces, schemes, parameters, responses with a description and a schema, x- extensions) and its parameters.
 * Parameters are body parameters (with a schema) or query and path parameters (with a type).
 */
export interface SwaggerPathItem {
  patch?: SwaggerSchema;
  parameters?: SwaggerSchema[];
}

/** The parts of a Swagger 2.0 document this encoder carries. */
export interface SwaggerDocument {
  swagger: string;
  info: { title: string; version: string };
  /** By path; an empty object is an empty (but present) paths message. */
  paths: Record<string, SwaggerPathItem>;
  definitions: Record<string, SwaggerSchema>;
}

const any = { fields: { yaml: { id: 2, type: 'string' } } };
const namedAny = { fields: { name: { id: 1, type: 'string' }, value: { id: 2, type: 'Any' } } };
const namedSchema = { fields: { name: { id: 1, type: 'string' }, value: { id: 2, type: 'Schema' } } };

// Field numbers from gnostic's openapiv2/OpenAPIv2.proto (package openapi.v2).
const schema = {
  fields: {
    ref: { id: 1, type: 'string' },
    format: { id: 2, type: 'string' },
    title: { id: 3, type: 'string' },
    description: { id: 4, type: 'string' },
    default: { id: 5, type: 'Any' },
    multipleOf: { id: 6, type: 'double' },
    maximum: { id: 7, type: 'double' },
    exclusiveMaximum: { id: 8, type: 'bool' },
    minimum: { id: 9, type: 'double' },
    exclusiveMinimum: { id: 10, type: 'bool' },
    maxLength: { id: 11, type: 'int64' },
    minLength: { id: 12, type: 'int64' },
    pattern: { id: 13, type: 'string' },
    maxItems: { id: 14, type: 'int64' },
    minItems: { id: 15, type: 'int64' },
    uniqueItems: { id: 16, type: 'bool' },
    maxProperties: { id: 17, type: 'int64' },
    minProperties: { id: 18, type: 'int64' },
    required: { id: 19, type: 'string', rule: 'repeated' },
    enum: { id: 20, type: 'Any', rule: 'repeated' },
    additionalProperties: { id: 21, type: 'AdditionalPropertiesItem' },
    type: { id: 22, type: 'TypeItem' },
    items: { id: 23, type: 'ItemsItem' },
    allOf: { id: 24, type: 'Schema', rule: 'repeated' },
    properties: { id: 25, type: 'Properties' },
    discriminator: { id: 26, type: 'string' },
    readOnly: { id: 27, type: 'bool' },
    externalDocs: { id: 29, type: 'ExternalDocs' },
    example: { id: 30, type: 'Any' },
    vendorExtension: { id: 31, type: 'NamedAny', rule: 'repeated' },
  },
};

const descriptor = {
  nested: {
    openapi: {
      nested: {
        v2: {
          nested: {
            Document: {
              fields: {
                swagger: { id: 1, type: 'string' },
                info: { id: 2, type: 'Info' },
                paths: { id: 8, type: 'Paths' },
                definitions: { id: 9, type: 'Definitions' },
              },
            },
            Info: { fields: { title: { id: 1, type: 'string' }, version: { id: 2, type: 'string' } } },
            Paths: {
              fields: {
                vendorExtension: { id: 1, type: 'NamedAny', rule: 'repeated' },
                path: { id: 2, type: 'NamedPathItem', rule: 'repeated' },
              },
            },
            NamedPathItem: { fields: { name: { id: 1, type: 'string' }, value: { id: 2, type: 'PathItem' } } },
            PathItem: {
              fields: {
                patch: { id: 8, type: 'Operation' },
                parameters: { id: 9, type: 'ParametersItem', rule: 'repeated' },
              },
            },
            Operation: {
              fields: {
                tags: { id: 1, type: 'string', rule: 'repeated' },
                description: { id: 3, type: 'string' },
                operationId: { id: 5, type: 'string' },
                produces: { id: 6, type: 'string', rule: 'repeated' },
                consumes: { id: 7, type: 'string', rule: 'repeated' },
                parameters: { id: 8, type: 'ParametersItem', rule: 'repeated' },
                responses: { id: 9, type: 'Responses' },
                schemes: { id: 10, type: 'string', rule: 'repeated' },
                vendorExtension: { id: 13, type: 'NamedAny', rule: 'repeated' },
              },
            },
            ParametersItem: {
              oneofs: { oneof: { oneof: ['parameter'] } },
              fields: { parameter: { id: 1, type: 'Parameter' } },
            },
            Parameter: {
              oneofs: { oneof: { oneof: ['bodyParameter', 'nonBodyParameter'] } },
              fields: {
                bodyParameter: { id: 1, type: 'BodyParameter' },
                nonBodyParameter: { id: 2, type: 'NonBodyParameter' },
              },
            },
            BodyParameter: {
              fields: {
                description: { id: 1, type: 'string' },
                name: { id: 2, type: 'string' },
                in: { id: 3, type: 'string' },
                required: { id: 4, type: 'bool' },
                schema: { id: 5, type: 'Schema' },
              },
            },
            NonBodyParameter: {
              oneofs: { oneof: { oneof: ['queryParameterSubSchema', 'pathParameterSubSchema'] } },
              fields: {
                queryParameterSubSchema: { id: 3, type: 'QueryParameterSubSchema' },
                pathParameterSubSchema: { id: 4, type: 'PathParameterSubSchema' },
              },
            },
            QueryParameterSubSchema: {
              fields: {
                required: { id: 1, type: 'bool' },
                in: { id: 2, type: 'string' },
                description: { id: 3, type: 'string' },
                name: { id: 4, type: 'string' },
                type: { id: 6, type: 'string' },
                uniqueItems: { id: 20, type: 'bool' },
              },
            },
            PathParameterSubSchema: {
              fields: {
                required: { id: 1, type: 'bool' },
                in: { id: 2, type: 'string' },
                description: { id: 3, type: 'string' },
                name: { id: 4, type: 'string' },
                type: { id: 5, type: 'string' },
                uniqueItems: { id: 19, type: 'bool' },
              },
            },
            Responses: { fields: { responseCode: { id: 1, type: 'NamedResponseValue', rule: 'repeated' } } },
            NamedResponseValue: {
              fields: { name: { id: 1, type: 'string' }, value: { id: 2, type: 'ResponseValue' } },
            },
            ResponseValue: {
              oneofs: { oneof: { oneof: ['response'] } },
              fields: { response: { id: 1, type: 'Response' } },
            },
            Response: { fields: { description: { id: 1, type: 'string' }, schema: { id: 2, type: 'SchemaItem' } } },
            SchemaItem: { oneofs: { oneof: { oneof: ['schema'] } }, fields: { schema: { id: 1, type: 'Schema' } } },
            Definitions: { fields: { additionalProperties: { id: 1, type: 'NamedSchema', rule: 'repeated' } } },
            Properties: { fields: { additionalProperties: { id: 1, type: 'NamedSchema', rule: 'repeated' } } },
            NamedSchema: namedSchema,
            NamedAny: namedAny,
            Any: any,
            Schema: schema,
            AdditionalPropertiesItem: {
              oneofs: { oneof: { oneof: ['schema', 'boolean'] } },
              fields: { schema: { id: 1, type: 'Schema' }, boolean: { id: 2, type: 'bool' } },
            },
            TypeItem: { fields: { value: { id: 1, type: 'string', rule: 'repeated' } } },
            ItemsItem: { fields: { schema: { id: 1, type: 'Schema', rule: 'repeated' } } },
            ExternalDocs: { fields: { description: { id: 1, type: 'string' }, url: { id: 2, type: 'string' } } },
          },
        },
      },
    },
  },
};

let documentType: Protobuf.Type | undefined;

function loadDocumentType(): Protobuf.Type {
  if (documentType === undefined) {
    const pb = createRequire(import.meta.url)('protobufjs/light.js') as typeof Protobuf;
    const root = pb.Root.fromJSON(descriptor);
    root.resolveAll();
    documentType = root.lookupType('openapi.v2.Document');
  }
  return documentType;
}

type Message = { [key: string]: unknown };

const yaml = (value: unknown): Message => ({ yaml: `${JSON.stringify(value)}\n` });

const COPIED = new Set([
  'format',
  'title',
  'description',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'discriminator',
  'readOnly',
]);

function isObject(v: unknown): v is SwaggerSchema {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** One Swagger schema as the Schema message; keys Swagger 2.0 has no field for (nullable, oneOf, ...) are left out. */
function schemaMessage(s: SwaggerSchema): Message {
  const out: Message = {};
  const extensions: Message[] = [];
  for (const [key, value] of Object.entries(s)) {
    if (COPIED.has(key)) out[key] = value;
    else if (key === '$ref') out['ref'] = value;
    else if (key === 'default' || key === 'example') out[key] = yaml(value);
    else if (key === 'enum' && Array.isArray(value)) out['enum'] = value.map(yaml);
    else if (key === 'type') out['type'] = { value: Array.isArray(value) ? value : [value] };
    else if (key === 'items')
      out['items'] = { schema: (Array.isArray(value) ? value : [value]).filter(isObject).map(schemaMessage) };
    else if (key === 'allOf' && Array.isArray(value)) out['allOf'] = value.filter(isObject).map(schemaMessage);
    else if (key === 'properties' && isObject(value)) out['properties'] = { additionalProperties: namedSchemas(value) };
    else if (key === 'additionalProperties') {
      out['additionalProperties'] = isObject(value) ? { schema: schemaMessage(value) } : { boolean: value === true };
    } else if (key === 'externalDocs' && isObject(value)) out['externalDocs'] = value;
    else if (key.startsWith('x-')) extensions.push({ name: key, value: yaml(value) });
  }
  if (extensions.length > 0) out['vendorExtension'] = extensions;
  return out;
}

function namedSchemas(byName: Record<string, unknown>): Message[] {
  return Object.entries(byName)
    .filter((entry): entry is [string, SwaggerSchema] => isObject(entry[1]))
    .map(([name, value]) => ({ name, value: schemaMessage(value) }));
}

const PARAMETER_FIELDS = ['required', 'in', 'description', 'name', 'type', 'uniqueItems'];

/** A body, query or path parameter as the ParametersItem message; other kinds of parameters are left out. */
function parameterMessage(p: SwaggerSchema): Message[] {
  if (p['in'] === 'body') {
    const { schema: s, ...rest } = p;
    const fields = Object.fromEntries(
      Object.entries(rest).filter(([k]) => PARAMETER_FIELDS.includes(k) && k !== 'type'),
    );
    return [{ parameter: { bodyParameter: { ...fields, ...(isObject(s) ? { schema: schemaMessage(s) } : {}) } } }];
  }
  const sub =
    p['in'] === 'query' ? 'queryParameterSubSchema' : p['in'] === 'path' ? 'pathParameterSubSchema' : undefined;
  if (sub === undefined) return [];
  const fields = Object.fromEntries(Object.entries(p).filter(([k]) => PARAMETER_FIELDS.includes(k)));
  return [{ parameter: { nonBodyParameter: { [sub]: fields } } }];
}

const parameterMessages = (ps: unknown): Message[] =>
  Array.isArray(ps) ? ps.filter(isObject).flatMap(parameterMessage) : [];

const OPERATION_FIELDS = ['tags', 'description', 'operationId', 'produces', 'consumes', 'schemes'];

function operationMessage(op: SwaggerSchema): Message {
  const out: Message = Object.fromEntries(Object.entries(op).filter(([k]) => OPERATION_FIELDS.includes(k)));
  out['parameters'] = parameterMessages(op['parameters']);
  const responses = isObject(op['responses']) ? op['responses'] : {};
  out['responses'] = {
    responseCode: Object.entries(responses)
      .filter((entry): entry is [string, SwaggerSchema] => isObject(entry[1]))
      .map(([code, r]) => ({
        name: code,
        value: {
          response: {
            description: r['description'],
            ...(isObject(r['schema']) ? { schema: { schema: schemaMessage(r['schema']) } } : {}),
          },
        },
      })),
  };
  const extensions = Object.entries(op)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: yaml(value) }));
  if (extensions.length > 0) out['vendorExtension'] = extensions;
  return out;
}

function pathItemMessage(item: SwaggerPathItem): Message {
  return {
    ...(item.patch ? { patch: operationMessage(item.patch) } : {}),
    parameters: parameterMessages(item.parameters),
  };
}

/** The gnostic openapi_v2.Document bytes of `doc`; paths and definitions keep the order of the object's keys. */
export function encodeSwaggerDocument(doc: SwaggerDocument): Uint8Array {
  const type = loadDocumentType();
  const message: Message = {
    swagger: doc.swagger,
    info: doc.info,
    paths: { path: Object.entries(doc.paths).map(([name, item]) => ({ name, value: pathItemMessage(item) })) },
    ...(Object.keys(doc.definitions).length > 0
      ? { definitions: { additionalProperties: namedSchemas(doc.definitions) } }
      : {}),
  };
  return type.encode(type.fromObject(message)).finish();
}
