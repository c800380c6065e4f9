// intstr.GetScaledValueFromIntOrPercent (k8s.io/apimachinery/pkg/util/intstr): a count, or "N%" of a total rounded
// up or down. The workload controllers size surges and unavailability with it, and its error texts reach users in
// the controllers' logs and events, so they are kube's to the letter.

import { CodedError } from '../util/errors.js';
import type { IntOrString } from './apps.js';

/** A string value that is not "N%", or a percentage whose number does not parse. */
export class IntOrStringError extends CodedError<'DKC_API_INT_OR_STRING_INVALID'> {
  override name = 'IntOrStringError';
}

const DECIMAL = /^[+-]?\d+$/;

function invalid(why: string): IntOrStringError {
  return new IntOrStringError('DKC_API_INT_OR_STRING_INVALID', `invalid value for IntOrString: ${why}`);
}

/** The value for `total`; a percentage is rounded up when `roundUp`, down otherwise. Throws IntOrStringError. */
export function scaledValue(value: IntOrString, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return Math.trunc(value);
  if (!value.endsWith('%')) throw invalid('invalid type: string is not a percentage');
  const digits = value.slice(0, -1);
  if (!DECIMAL.test(digits)) {
    throw invalid(
      `invalid value ${JSON.stringify(value)}: strconv.Atoi: parsing ${JSON.stringify(digits)}: invalid syntax`,
    );
  }
  const scaled = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}
