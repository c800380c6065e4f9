// Schema patterns are Go (RE2) regular expressions. Most read the same in JavaScript; the differences that
// occur in real CRDs are bridged here: a leading flag group (`(?i)`), and escapes that Go accepts but
// JavaScript's unicode mode refuses (`\_`, `\:`), for which the pattern is compiled without the `u` flag.

const LEADING_FLAGS = /^\(\?([imsU]+)\)/;

/** The JavaScript RegExp for a Go pattern, or the reason it cannot be compiled. */
export function goRegExp(pattern: string): RegExp | Error {
  let source = pattern;
  let flags = '';
  const lead = LEADING_FLAGS.exec(source);
  if (lead) {
    source = source.slice(lead[0].length);
    flags = [...new Set(lead[1]!.replace('U', ''))].join('');
  }
  try {
    return new RegExp(source, `${flags}u`);
  } catch (unicodeErr) {
    try {
      return new RegExp(source, flags);
    } catch {
      return unicodeErr as Error;
    }
  }
}
