// Go's strconv.Quote (the %q verb), which upstream's messages use to quote values. A leaf below both api/ and
// kubeletconfig/ (which import nothing else of ours), so the server's field errors and the kubelet library's
// messages quote a value the same way, as the Go binaries do.

// unicode.IsPrint: letters, marks, numbers, punctuation and symbols, plus the ASCII space (no other spaces).
const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u;

const NAMED_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x07, '\\a'],
  [0x08, '\\b'],
  [0x0c, '\\f'],
  [0x0a, '\\n'],
  [0x0d, '\\r'],
  [0x09, '\\t'],
  [0x0b, '\\v'],
]);

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function quoteRune(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (ch === '"' || ch === '\\') return '\\' + ch;
  if (cp >= 0x20 && cp < 0x7f) return ch;
  // A lone surrogate is no valid rune; Go writes utf8.RuneError for it.
  if (cp >= 0xd800 && cp <= 0xdfff) return '\\ufffd';
  if (cp >= 0x80 && PRINTABLE.test(ch)) return ch;
  const named = NAMED_ESCAPES.get(cp);
  if (named !== undefined) return named;
  if (cp < 0x20 || cp === 0x7f) return '\\x' + hex(cp, 2);
  if (cp < 0x10000) return '\\u' + hex(cp, 4);
  return '\\U' + hex(cp, 8);
}

/** strconv.Quote: double-quoted, Go's escapes, printable Unicode kept as is. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += quoteRune(ch);
  return out + '"';
}
