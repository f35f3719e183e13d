// Rows of text cells as aligned columns: each column as wide as its widest cell, up to a cap past which a
// cell keeps its end (a path's file name tells more than its first folders) behind an ellipsis. The last
// column is never padded or cut.
export interface ColumnOptions {
  /** The widest any column but the last may be. */
  maxWidth?: number;
  /** Columns whose cells are right-aligned (counts). */
  alignRight?: number[];
  /** Put before each row. */
  indent?: string;
}

export function columns(rows: string[][], options: ColumnOptions = {}): string[] {
  const { maxWidth = 48, alignRight = [], indent = '  ' } = options;
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.min(maxWidth, Math.max(widths[i] ?? 0, cell.length))));
  return rows.map((row) => indent + row.map((cell, i) => {
    if (i === row.length - 1) return cell;
    const fitted = cell.length > widths[i]! ? `…${cell.slice(cell.length - widths[i]! + 1)}` : cell;
    return alignRight.includes(i) ? fitted.padStart(widths[i]!) : fitted.padEnd(widths[i]!);
  }).join('  ').trimEnd());
}
