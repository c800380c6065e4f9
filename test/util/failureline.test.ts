import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failureLine } from '../../src/util/failureline.js';

describe('failureLine', () => {
  const cases: { name: string; log: string; want: string | undefined }[] = [
    { name: 'nothing logged', log: '', want: undefined },
    { name: 'info lines only', log: 'I1126 10:00:00.000000   1 a.ts:1] started\n', want: undefined },
    {
      name: "the dkc binary's line wins over a later klog error",
      log: 'dkc: listen EADDRINUSE: address already in use 127.0.0.1:4000\nE1126 10:00:00.000000   1 a.ts:1] later\n',
      want: 'listen EADDRINUSE: address already in use 127.0.0.1:4000',
    },
    { name: "a command's own prefix", log: 'dkc server: --port: bad value\n', want: '--port: bad value' },
    {
      name: 'the last error or fatal klog line, without its header',
      log: 'E1126 10:00:00.000000   1 a.ts:1] first\nF1126 10:00:01.000000   1 b.ts:2] second\nI1126 x\n',
      want: 'second',
    },
    {
      name: 'a long line is cut',
      log: `dkc: ${'x'.repeat(1000)}\n`,
      want: `${'x'.repeat(400)}… (600 more characters)`,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(failureLine(c.log), c.want));
});
