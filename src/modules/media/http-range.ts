/**
 * The byte range a `Range` header asks of a file of `size` bytes (RFC 9110 §14). Pure. One range only:
 * a multi-range request, another unit or a malformed header is answered with the whole file, as the RFC
 * allows; a range that starts past the end is unsatisfiable (416).
 */
export type RangeAnswer =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' }

export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'full' }
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!match) return { kind: 'full' }
  const [, first, last] = match as unknown as [string, string, string]
  if (first === '' && last === '') return { kind: 'full' }
  if (first === '') {
    const suffix = Number(last)
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' }
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(first)
  const end = last === '' ? undefined : Number(last)
  // last < first is an invalid range-spec, which is ignored rather than refused.
  if (end !== undefined && end < start) return { kind: 'full' }
  if (start >= size) return { kind: 'unsatisfiable' }
  return { kind: 'partial', start, end: Math.min(end ?? size - 1, size - 1) }
}
