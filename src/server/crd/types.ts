// The apiextensions.k8s.io/v1 CustomResourceDefinition, as far as the server reads it.

export interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface PrinterColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: object; scale?: object };
  additionalPrinterColumns?: PrinterColumn[];
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Crd {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    annotations?: Record<string, string>;
  };
  spec: {
    group?: string;
    names?: CrdNames;
    scope?: string;
    versions?: CrdVersion[];
    conversion?: { strategy?: string };
    preserveUnknownFields?: boolean;
  };
  status?: {
    conditions?: CrdCondition[];
    acceptedNames?: CrdNames;
    storedVersions?: string[];
  };
}
