// A test reporter for node's runner that prints nothing until the end, then one block per failed test: its file,
// its path of suite and test names, and the error. run-tests.mjs uses it beside the TAP reporter, so a long run's
// failures are found at the bottom of its output instead of somewhere among thousands of lines.
import { inspect } from 'node:util';

/** Indents every line of `text` by `pad`. */
const indent = (text, pad) =>
  text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');

/** The error of a failed test, as one readable block: the cause when the runner wrapped it, without node's frames. */
function describe(error) {
  // The runner wraps what went wrong (a test's throw, a hook's) as the cause of its own error.
  const inner = error?.cause !== undefined && error.cause !== null ? error.cause : error;
  const text = inner instanceof Error ? (inner.stack ?? String(inner)) : inspect(inner, { depth: 4 });
  return text
    .split('\n')
    .filter((line) => !/^\s+at .*\(?node:/.test(line) && !/^\s+at (new Promise|Array\.map) /.test(line))
    .join('\n');
}

export default async function* failures(source) {
  const names = new Map(); // file -> the names of the tests running at each nesting level
  const failed = [];
  for await (const event of source) {
    const key = event.data?.file ?? '';
    if (event.type === 'test:start') {
      if (!names.has(key)) names.set(key, []);
      names.get(key)[event.data.nesting] = event.data.name;
    }
    if (event.type !== 'test:fail') continue;
    const { nesting, name, file, details } = event.data;
    // A suite fails when a test in it fails; that test is already listed.
    if (details.error?.failureType === 'subtestsFailed') continue;
    const path = [...(names.get(key) ?? []).slice(0, nesting), name].join(' > ');
    failed.push(`not ok: ${path}\n  file: ${file ?? '?'}\n${indent(describe(details.error), '  ')}\n`);
  }
  if (failed.length === 0) return;
  yield `\n# ${failed.length} failed test${failed.length === 1 ? '' : 's'}:\n`;
  for (const f of failed) yield f;
}
