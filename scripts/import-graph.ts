/**
 * The import graph of src/: prints every import that runs from a lower layer to a higher one and
 * every import cycle. `test/unit/layering.test.ts` asserts both lists are empty.
 *
 *   npx tsx scripts/import-graph.ts
 */
import { layeringReport } from '../test/support/import-graph.js';

const report = layeringReport();
for (const e of report.upward) console.log(`upward: ${e.from} → ${e.to}`);
for (const c of report.cycles) console.log(`cycle: ${c.join(' → ')}`);
console.log(`${report.files} files, ${report.edges} imports, ${report.upward.length} upward, ${report.cycles.length} cycles`);
