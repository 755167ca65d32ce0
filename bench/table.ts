// What every measurement's report is made of: a target judged PASS or MISS, and a plain-text table.

export interface Target {
  name: string;
  limit: string;
  measured: string;
  /** Undefined for a figure that is reported, not judged. */
  pass: boolean | undefined;
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export const verdict = (pass: boolean | undefined) => (pass === undefined ? '' : pass ? 'PASS' : 'MISS');
