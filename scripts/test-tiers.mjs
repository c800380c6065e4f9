// Which of the three test commands runs a test file, decided by its path alone:
//   e2e          a folder named e2e/, or a name ending .e2e.test.ts: drives kubectl, a browser, etcd, nginx, Prometheus
//                or another program the machine must have (scripts/test-deps.sh installs them);
//   integration  a folder named integration/, or a name integration.test.ts or ending .integration.test.ts: starts
//                real dkc processes (a server, a cluster, an agent) or kills real processes, or runs a campaign of
//                minutes (thousands of random inputs); needs nothing but Node;
//   unit         every other test: in-process, needs nothing but Node and `npm ci`, quick.
// test/scripts/test-tiers.test.ts holds unit tests to it: none may import a helper that starts processes.

/** @typedef {'unit' | 'integration' | 'e2e'} Tier */
export const TIERS = /** @type {const} */ (['unit', 'integration', 'e2e']);

/** @param {string} file a test file's path (source or compiled, / or \ separated) @returns {Tier} */
export function tierOf(file) {
  const parts = file.split(/[\\/]/);
  const name = parts.pop() ?? '';
  if (parts.includes('e2e') || /\.e2e\.test\.[cm]?[jt]s$/.test(name)) return 'e2e';
  if (parts.includes('integration') || /(^|\.)integration\.test\.[cm]?[jt]s$/.test(name)) return 'integration';
  return 'unit';
}
