// The client's time source is the one injectable clock (src/util/clock.ts); the token bucket and the informer
// read its monotonic side. The names stay for the client's callers.

export { systemClock as systemTimers, type Clock as Timers, type TimerHandle } from '../util/clock.js';
