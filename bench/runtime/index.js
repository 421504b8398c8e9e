// npm run bench:runtime — builds, then prints markdown tables for the success-path cost and the
// retry-storm simulation in one run.
import { successPath, successPathTable } from './success-path.js';
import { stormTables } from './storm.js';

const quick = process.argv.includes('--quick');

console.log('## Success-path cost per call\n');
console.log(successPathTable(await successPath(quick ? { rounds: 5, calls: 20_000 } : undefined)));
console.log('\n## Retry-storm simulation (virtual time)\n');
console.log(await stormTables({ quick }));
