/**
 * The layer rule of ARCHITECTURE.md, checked on the real import graph of src/: no import from a
 * lower layer to a higher one (cli → launcher → gateway → api → pipeline → workers → engine), no
 * production import of the mock engine, and no import cycle anywhere.
 */
import { describe, expect, it } from 'vitest';
import { layeringReport } from '../support/import-graph.js';

describe('src/ layering', () => {
  const report = layeringReport();

  it('reads the whole tree', () => {
    expect(report.files).toBeGreaterThan(150);
    expect(report.edges).toBeGreaterThan(report.files);
  });

  it('has no import from a lower layer to a higher one', () => {
    expect(report.upward).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(report.cycles).toEqual([]);
  });
});
