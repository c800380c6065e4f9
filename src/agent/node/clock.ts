// The node lifecycle loops take the one injectable clock (src/util/clock.ts), so that tests drive heartbeat and
// lease cadences without sleeping; they read its wall side, because every timestamp they compute is written to
// the API as metav1.Time / MicroTime (rendered by the shared clock module).

export { formatMicroTime, formatTime, sleep, systemClock, type Clock, type TimerHandle } from '../../util/clock.js';
