/**
 * CSV as RFC 4180 writes it (CRLF line ends; a cell with a comma, a quote or a line break in quotes, quotes
 * doubled), with the cells a spreadsheet would run as a formula neutralised: a cell that starts with `=`,
 * `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so it is shown as the text it is (OWASP,
 * "CSV Injection"). Copy and error messages are text people wrote or networks sent; none is a formula here.
 */

const FORMULA_START = /^[=+\-@\t\r]/

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return ''
  let text = String(value)
  if (typeof value !== 'number' && FORMULA_START.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text
}

export const csvLine = (cells: Array<string | number | null | undefined>) =>
  `${cells.map(csvCell).join(',')}\r\n`
