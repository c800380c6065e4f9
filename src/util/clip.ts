// Text that came from elsewhere (a record read from disk, an error's message), cut to a length a log line or a
// status can carry, saying how much was left out. Pure.

/** Longest message a log line carries, in UTF-16 units. */
export const MAX_LOG_MESSAGE = 400;

/** `text` cut to `max`, saying how much was left out. */
export function clip(text: string, max = MAX_LOG_MESSAGE): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
