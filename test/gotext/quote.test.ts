import { test } from 'node:test';
import assert from 'node:assert/strict';
import { field, goQuote as apiQuote } from '../../src/api/field.js';
import { goQuote as kubeletQuote } from '../../src/kubeletconfig/values.js';
import { goQuote } from '../../src/gotext/quote.js';

// What Go 1.22's strconv.Quote returns for each input (fmt.Printf("%q")), from its appendEscapedRune rules:
// named escapes for \a \b \f \n \r \t \v, \xNN for other C0 controls and DEL, \uNNNN / \UNNNNNNNN for runes
// unicode.IsPrint rejects (other spaces, format characters, C1 controls), printable runes as they are.
const GO_QUOTE: Array<[string, string]> = [
  ['', '""'],
  ['plain text', '"plain text"'],
  ['say "hi" \\ there', '"say \\"hi\\" \\\\ there"'],
  ['\x07\b\f\n\r\t\v', '"\\a\\b\\f\\n\\r\\t\\v"'],
  ['\x00\x01\x1b\x7f', '"\\x00\\x01\\x1b\\x7f"'],
  ['\u0085\u009f', '"\\u0085\\u009f"'],
  ['caf\u00e9 \u65e5\u672c \u{1f600}', '"caf\u00e9 \u65e5\u672c \u{1f600}"'],
  ['a\u00a0b\u2028c\u3000', '"a\\u00a0b\\u2028c\\u3000"'],
  ['\u200b\ufeff', '"\\u200b\\ufeff"'],
  ['\u{e0001}', '"\\U000e0001"'],
  ['\ud800x', '"\\ufffdx"'],
  ["it's <html>&", '"it\'s <html>&"'],
];

test('goQuote renders as Go strconv.Quote', () => {
  for (const [input, want] of GO_QUOTE) assert.equal(goQuote(input), want, JSON.stringify(input));
});

test('the API field errors and the kubelet library quote with the same function', () => {
  assert.equal(apiQuote, goQuote);
  assert.equal(kubeletQuote, goQuote);
  assert.equal(field.invalid('metadata.name', 'a\x07\vb').toString(), 'metadata.name: Invalid value: "a\\a\\vb"');
  assert.equal(
    field.notSupported('spec.mode', 'x', ['a\tb']).toString(),
    'spec.mode: Unsupported value: "x": supported values: "a\\tb"',
  );
});
