/** The closing tables: every figure of issue 30 (and 17), gateway vs http-ceiling vs direct, ratio, goal. */
import { TARGET_LABEL, type Target } from './args.js';
import { meetsGoal, type Figure } from './figures.js';
import { fmtNum } from './stats.js';
import { table } from './report.js';

export function fmtFigure(v: number | undefined, unit: string): string {
  if (v === undefined || !Number.isFinite(v)) return '-';
  if (unit === '×') return `${v.toFixed(2)}×`;
  if (unit === 'tok/s') return fmtNum(v);
  if (unit === 'count') return String(Math.round(v));
  if (unit === 'KB') return fmtNum(v, v < 100 ? 1 : 0);
  if (unit === 'µs') return fmtNum(v, v < 100 ? 1 : 0);
  return v < 10 ? v.toFixed(2) : v.toFixed(1);
}

export const ISSUE17_TITLE = 'Issue 17 figures (server = the serving process; "met" judges the gateway, or gw÷ceiling for tokens/s)';
export const ISSUE30_TITLE =
  'Issue 30 figures (server = the serving process; "met" judges gw÷ceiling where the goal says "ceiling", else the gateway)';

export function formatIssueTable(figs: Figure[], targets: Target[], title = ISSUE17_TITLE): string {
  if (figs.length === 0) return '';
  const hasGw = targets.includes('gateway');
  const others = targets.filter((t) => t !== 'gateway');
  const head = ['figure', ...targets.map((t) => TARGET_LABEL[t]), ...(hasGw ? others.map((t) => `gw÷${t === 'ceiling' ? 'ceil' : t}`) : []), 'goal', 'met'];
  const rows = figs.map((f) => {
    const met = meetsGoal(f);
    return [
      f.label,
      ...targets.map((t) => fmtFigure(f.values[t], f.unit)),
      ...(hasGw
        ? others.map((t) => {
            const g = f.values.gateway;
            const o = f.values[t];
            return f.unit === '×' || f.unit === 'count' || g === undefined || o === undefined || o === 0 ? '' : `${(g / o).toFixed(2)}×`;
          })
        : []),
      f.goal?.text ?? '',
      met === null ? '' : met ? 'yes' : 'NO',
    ];
  });
  const details = figs
    .filter((f) => f.details && Object.keys(f.details).length > 0)
    .map((f) => `  ${f.label}: ${targets.filter((t) => f.details![t]).map((t) => `${TARGET_LABEL[t]} ${f.details![t]}`).join('; ')}`);
  const widths = [Math.max(52, ...figs.map((f) => f.label.length + 2)), ...targets.map(() => 14), ...(hasGw ? others.map(() => 10) : []), 22, 5];
  return [
    title,
    table(head, rows, widths),
    ...details,
  ].join('\n');
}
