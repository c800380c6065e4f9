import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kubeFormats, normalizeFormat } from '../../../src/server/crd/formats.js';

/** [format, accepted, refused] as kube-openapi's strfmt registry judges them. */
const cases: [string, string[], string[]][] = [
  ['bsonobjectid', ['507f1f77bcf86cd799439011'], ['507f1f77bcf86cd79943901', 'zzzf1f77bcf86cd799439011']],
  ['uri', ['https://example.com/a?b=c', '/absolute/path', 'mailto:a@b.c'], ['relative/path', '', 'http://a b']],
  ['email', ['a@b.io', 'Name <a@b.io>'], ['a.b.io', 'a@', '']],
  ['hostname', ['example.com', 'localhost', 'a.b-c.de'], ['-bad', 'a..b', 'under_score.com']],
  ['ipv4', ['10.0.0.1', '010.0.0.1'], ['10.0.0', '256.1.1.1', '::1']],
  ['ipv6', ['::1', 'fe80::1', '::ffff:10.0.0.1'], ['10.0.0.1', 'gggg::1']],
  ['cidr', ['10.0.0.0/8', 'fd00::/64'], ['10.0.0.0', '10.0.0.0/33', 'fd00::/129']],
  ['mac', ['01:23:45:67:89:ab', '01-23-45-67-89-AB', '0123.4567.89ab'], ['01:23:45:67:89', '0123456789ab']],
  ['uuid', ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'], ['123e4567-e89b-12d3-a456']],
  ['uuid3', ['a3bb189e-8bf9-3888-9912-ace4e6543002'], ['a3bb189e-8bf9-4888-9912-ace4e6543002']],
  ['uuid4', ['f47ac10b-58cc-4372-a567-0e02b2c3d479'], ['f47ac10b-58cc-4372-c567-0e02b2c3d479']],
  ['uuid5', ['74738ff5-5367-5958-9aee-98fffdcd1876'], ['74738ff5-5367-4958-9aee-98fffdcd1876']],
  ['isbn10', ['0-306-40615-2', '080442957X'], ['0-306-40615-3']],
  ['isbn13', ['978-0-306-40615-7'], ['978-0-306-40615-8']],
  ['isbn', ['0306406152', '9780306406157'], ['123']],
  ['creditcard', ['4111 1111 1111 1111', '5500-0000-0000-0004'], ['4111 1111 1111 1112']],
  ['ssn', ['123-45-6789', '123456789'], ['12-345-6789']],
  ['hexcolor', ['#fff', 'a0b1c2'], ['#ffff', 'gggggg']],
  ['rgbcolor', ['rgb(0, 128, 255)'], ['rgb(256,0,0)', 'rgb(1,2)']],
  ['byte', ['aGVsbG8=', 'aGk='], ['not base64!', '']],
  ['password', ['anything', ''], []],
  ['date', ['2024-02-29', '2026-12-31'], ['2026-02-29', '2026-13-01', '2026-1-01']],
  ['duration', ['1h30m', '-1.5s', '0', '3 days', '2 weeks'], ['one hour', '5 parsecs']],
  [
    'datetime',
    ['2026-01-01T10:00:00Z', '2026-01-01t10:00:00.123+01:00'],
    ['2026-01-01T24:00:00Z', '2026-01-01T10:00:00', '2026-01-01'],
  ],
];

describe('formats kube-apiserver checks in custom resources', () => {
  for (const [format, good, bad] of cases) {
    it(format, () => {
      const check = kubeFormats[format]!;
      for (const s of good) assert.equal(check(s), true, `${format} accepts ${JSON.stringify(s)}`);
      for (const s of bad) assert.equal(check(s), false, `${format} refuses ${JSON.stringify(s)}`);
    });
  }

  it('names match without dashes; anything else (int32 included) is not checked', () => {
    assert.equal(normalizeFormat('date-time'), 'datetime');
    assert.equal(normalizeFormat('int32'), undefined);
    assert.equal(normalizeFormat('k8s-short-name'), undefined);
    assert.equal(normalizeFormat(''), undefined);
  });
});
