import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Duration, DurationError, Quantity, QuantityError } from '../../src/kubeletconfig/index.js';

test('Duration.parse follows time.ParseDuration', () => {
  const cases: Array<[string, bigint]> = [
    ['0', 0n],
    ['-0', 0n],
    ['1ns', 1n],
    ['1.5us', 1500n],
    ['1\u00b5s', 1000n],
    ['1\u03bcs', 1000n],
    ['100ms', 100_000_000n],
    ['1m30s', 90_000_000_000n],
    ['-1.5h', -5_400_000_000_000n],
    ['+2h45m', 9_900_000_000_000n],
    ['.5s', 500_000_000n],
    ['1.s', 1_000_000_000n],
    ['9223372036854775807ns', 9223372036854775807n],
    ['0.3333333333333333333h', 1_200_000_000_000n],
  ];
  for (const [s, ns] of cases) assert.equal(Duration.parse(s).nanoseconds, ns, s);
});

test('Duration.parse errors carry Go texts', () => {
  const cases: Array<[string, string]> = [
    ['', 'time: invalid duration ""'],
    ['1', 'time: missing unit in duration "1"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['.s', 'time: invalid duration ".s"'],
    ['s', 'time: invalid duration "s"'],
    ['1m 30s', 'time: unknown unit "m " in duration "1m 30s"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['1\u00e9s', 'time: unknown unit "\\xc3\\xa9s" in duration "1\\xc3\\xa9s"'],
  ];
  for (const [s, msg] of cases) {
    assert.throws(
      () => Duration.parse(s),
      (e: unknown) => e instanceof DurationError && e.message === msg,
      s,
    );
  }
});

test('Duration formats like Go Duration.String', () => {
  const cases: Array<[string, string]> = [
    ['0s', '0s'],
    ['1ns', '1ns'],
    ['1500ns', '1.5\u00b5s'],
    ['1.1ms', '1.1ms'],
    ['100ms', '100ms'],
    ['1s', '1s'],
    ['90s', '1m30s'],
    ['2m', '2m0s'],
    ['1h', '1h0m0s'],
    ['-1m0.5s', '-1m0.5s'],
    ['2540400h10m10.000000000s', '2540400h10m10s'],
  ];
  for (const [s, out] of cases) assert.equal(Duration.parse(s).toString(), out, s);
});

test('Duration comparison and arithmetic are exact', () => {
  const a = Duration.parse('1h');
  const b = Duration.parse('59m60s');
  assert.ok(a.equals(b));
  assert.equal(a.cmp(Duration.parse('1h0m0.000000001s')), -1);
  assert.equal(a.add(Duration.parse('1ns')).toString(), '1h0m0.000000001s');
  assert.equal(a.sub(Duration.parse('2h')).sign(), -1);
  assert.equal(Duration.fromMilliseconds(1500).toString(), '1.5s');
  assert.equal(Duration.parse('1.9ms').toMilliseconds(), 1);
});

test('Quantity.parse keeps exact values and the canonical spelling', () => {
  const cases: Array<[string, string, string]> = [
    // input, canonical/cached output, value in milli-units
    ['0', '0', '0'],
    ['1Gi', '1Gi', '1073741824000'],
    ['1024Mi', '1Gi', '1073741824000'],
    ['1.5Gi', '1536Mi', '1610612736000'],
    ['500m', '500m', '500'],
    ['0.5', '500m', '500'],
    ['1e3', '1e3', '1000000'],
    ['1000e0', '1e3', '1000000'],
    ['1000m', '1', '1000'],
    ['1024', '1024', '1024000'],
    ['+3Ki', '+3Ki', '3072000'],
    ['-1Ki', '-1Ki', '-1024000'],
    ['0.1Ki', '102400m', '102400'],
    ['0.5Ki', '512', '512000'],
    ['12345678901234567890', '12345678901234567890', '12345678901234567890000'],
    ['1E', '1E', '1000000000000000000000'],
    ['10Ei', '9223372036854775807', '9223372036854775807000'],
    ['.5', '500m', '500'],
    ['-', '0', '0'],
  ];
  for (const [s, canonical, milli] of cases) {
    const q = Quantity.parse(s);
    assert.equal(q.toString(), canonical, s);
    assert.equal(q.milliValue().toString(), milli, s);
  }
});

test('Quantity rounds up to nano precision and caps BinarySI at int64', () => {
  assert.equal(Quantity.parse('1.0000000001').toString(), '1000000001n');
  assert.equal(Quantity.parse('0.0000000001').toString(), '1n');
  assert.equal(Quantity.parse('-0.0000000001').toString(), '-1n');
  assert.equal(Quantity.parse('1e-20').toString(), '1e-9', 'DecimalExponent keeps its form');
  assert.equal(Quantity.parse('16Ei').toString(), '9223372036854775807');
});

test('Quantity errors carry apimachinery texts', () => {
  const wrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const cases: Array<[string, string]> = [
    ['', wrong],
    ['1.5.5', wrong],
    ['abc', wrong],
    ['1 Gi', wrong],
    ['1Gb', wrong],
    ['1Mk', "unable to parse quantity's suffix"],
    ['1e', "unable to parse quantity's suffix"],
    ['1ki', "unable to parse quantity's suffix"],
    ['e-10', 'unable to parse numeric part of quantity'],
  ];
  for (const [s, msg] of cases) {
    assert.throws(
      () => Quantity.parse(s),
      (e: unknown) => e instanceof QuantityError && e.message === msg,
      s,
    );
  }
});

test('Quantity arithmetic is exact with bigint', () => {
  const a = Quantity.parse('0.1');
  const b = Quantity.parse('0.2');
  assert.ok(a.add(b).equals(Quantity.parse('0.3')), '0.1 + 0.2 is exactly 0.3');
  assert.equal(Quantity.parse('1Ei').add(Quantity.parse('1')).value(), (1n << 60n) + 1n);
  assert.equal(Quantity.parse('1Gi').cmp(Quantity.parse('1G')), 1);
  assert.equal(Quantity.parse('1e1000').cmp(Quantity.parse('1e999')), 1, 'huge exponents compare without expanding');
  assert.equal(Quantity.parse('-1').cmp(Quantity.parse('1e-5')), -1);
  assert.equal(Quantity.parse('1500m').value(), 2n, 'value rounds up');
  assert.equal(Quantity.parse('2Gi').sub(Quantity.parse('1Gi')).toString(), '1Gi');
  assert.equal(Quantity.parse('1Gi').roundUp(-3).toString(), '1Gi', 'no rounding needed keeps the value');
  assert.equal(Quantity.fromJSONToken('" 1Gi "').toString(), '1Gi', 'UnmarshalJSON trims white space');
});
