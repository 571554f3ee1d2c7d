/** CSV files for the import tests and benchmark, written the way spreadsheets save them. */

const quote = (cell: string) => (/[",\n\r]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)

export const csvLine = (cells: string[]) => cells.map(quote).join(',')

export interface BadRow {
  /** The row number a spreadsheet shows (the header is row 1). */
  row: number
  column: string | undefined
  reason: RegExp
}

/**
 * `good + 7` rows to `linkedin:acme-li` (one post each), starting the day after `from` (YYYY-MM-DD), with a
 * byte-order mark, quoted fields holding commas, quotes and new lines, a few rows taking the queue, and
 * seven bad rows spread through the file, each bad in one way.
 */
export function teamCsv(options: { good: number; from: string; queueRows?: number; bom?: boolean }) {
  const header = ['Content', 'Profiles', 'Date', 'Time', 'Timezone', 'Media URLs', 'First comment', 'Queue']
  const lines = [csvLine(header)]
  const bad: BadRow[] = []
  const start = Date.parse(`${options.from}T00:00:00Z`)
  const day = (n: number) => new Date(start + (1 + Math.floor(n / 8)) * 86_400_000).toISOString().slice(0, 10)
  const time = (n: number) => `${String(8 + (n % 8)).padStart(2, '0')}:${n % 2 ? '30' : '00'}`
  const badRows: Array<{ cells: string[]; column: string | undefined; reason: RegExp }> = [
    {
      cells: ['Who?', 'twitter:nobody', day(1), '10:00', 'UTC', '', '', ''],
      column: 'profiles',
      reason: /No connected twitter profile matches nobody/,
    },
    {
      cells: ['Too late', 'linkedin:acme-li', '2020-01-01', '10:00', 'UTC', '', '', ''],
      column: 'date',
      reason: /in the past/,
    },
    {
      cells: ['Nowhere time', 'linkedin:acme-li', day(2), '10:00', 'Mars/Olympus', '', '', ''],
      column: 'timezone',
      reason: /IANA zone/,
    },
    {
      cells: ['Wrong network', 'myspace:acme', day(3), '10:00', 'UTC', '', '', ''],
      column: 'profiles',
      reason: /does not start with a network/,
    },
    {
      cells: ['Both ways', 'linkedin:acme-li', day(4), '10:00', 'UTC', '', '', 'yes'],
      column: 'queue',
      reason: /not both/,
    },
    {
      cells: ['Bad media', 'linkedin:acme-li', day(5), '10:00', 'UTC', 'ftp://example.com/a.png', '', ''],
      column: 'media URLs',
      reason: /not an http\(s\) URL/,
    },
    {
      cells: ['With a long comment', 'linkedin:acme-li', day(6), '10:00', 'UTC', '', 'x'.repeat(1300), ''],
      column: 'first comment',
      reason: /the first comment is 1300 characters; linkedin allows 1250/,
    },
  ]
  const total = options.good + badRows.length
  const every = Math.floor(total / badRows.length)
  let good = 0
  for (let i = 0; i < total; i++) {
    const next = badRows[0]
    if (next && i % every === every - 1) {
      badRows.shift()
      lines.push(csvLine(next.cells))
      bad.push({ row: lines.length, column: next.column, reason: next.reason })
      continue
    }
    const n = good++
    const queued = n < (options.queueRows ?? 0)
    const content =
      n % 10 === 0
        ? `Post ${n}: "quoted", with commas,\nand a second line`
        : `Post ${n} of the import — ünïcode ✓`
    lines.push(
      csvLine([
        content,
        n % 3 === 0 ? 'linkedin:@Acme-Li' : 'linkedin:acme-li',
        queued ? '' : day(n),
        queued ? '' : time(n),
        queued ? '' : 'Europe/Berlin',
        '',
        '',
        queued ? 'yes' : '',
      ]),
    )
  }
  const text = `${options.bom === false ? '' : '\uFEFF'}${lines.join('\r\n')}\r\n`
  return { text, bad, good }
}
