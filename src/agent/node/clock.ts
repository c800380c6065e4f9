// The node lifecycle loops take the one injectable clock (src/util/clock.ts), so that tests drive heartbeat and
// lease cadences without sleeping; they read its wall side, because every timestamp they compute is written to
// the API as metav1.Time / MicroTime, rendered here.

export { sleep, systemClock, type Clock, type TimerHandle } from '../../util/clock.js';

/** metav1.Time: RFC 3339 with second precision, UTC. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime: RFC 3339 with six fractional digits, UTC (Go layout 2006-01-02T15:04:05.000000Z07:00). */
export function formatMicroTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
