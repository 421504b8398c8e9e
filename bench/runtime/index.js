// npm run bench:runtime — builds, then prints markdown tables for the success-path cost, for
// calls a millisecond or more apart and the retry-storm simulation, in one run.
import { sparseCalls, sparseCallsTable, successPath, successPathTable } from './success-path.js';
import { stormTables } from './storm.js';

const quick = process.argv.includes('--quick');

console.log('## Success-path cost per call\n');
console.log(successPathTable(await successPath(quick ? { rounds: 5, calls: 20_000 } : undefined)));
console.log('\n## Calls a millisecond or more apart\n');
console.log(sparseCallsTable(await sparseCalls(quick ? { rounds: 3, calls: 300 } : undefined)));
console.log('\n## Retry-storm simulation (virtual time)\n');
console.log(await stormTables({ quick }));
