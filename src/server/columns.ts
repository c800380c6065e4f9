// The pieces of a resource's Table columns every kind shares: a column with kube's defaults, the Name and Age
// columns with their descriptions, and the Age cell.

import { age } from '../api/humanize.js';
import type { KubeObject } from '../api/types.js';
import type { TableColumn } from './resourcedef.js';

export const col = (name: string, description: string, opts: Partial<TableColumn> = {}): TableColumn => ({
  name,
  type: 'string',
  format: '',
  description,
  priority: 0,
  ...opts,
});
export const nameCol = col('Name', 'Name must be unique within a namespace.', { format: 'name' });
export const ageCol = col(
  'Age',
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);
export const created = (o: KubeObject, now: number): string => age(o.metadata?.creationTimestamp, now);
