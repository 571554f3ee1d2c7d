import { createHash } from 'node:crypto'

const SORTABLE = '234567abcdefghijklmnopqrstuvwxyz'

/**
 * The record key of a target's post: a TID (the key type `app.bsky.feed.post` declares) derived from the
 * target id alone, so every attempt for one target writes to the same key and a repeated `createRecord`
 * cannot make a second post. Herald ids start with the second they were made, which becomes the TID's
 * timestamp (so keys still sort roughly by time); the microseconds and the 10-bit clock id come from a
 * hash of the whole id. Layout: top bit 0, 53 bits of microseconds, 10 bits of clock id, written as 13
 * characters of base32-sortable.
 */
export function recordKeyFor(targetId: string): string {
  const digest = createHash('sha256').update(targetId).digest()
  const seconds = /^[0-9a-f]{8}/i.test(targetId) ? Number.parseInt(targetId.slice(0, 8), 16) : 0
  const micros = BigInt(seconds) * 1_000_000n + BigInt(digest.readUInt32BE(0) % 1_000_000)
  const clockId = BigInt(digest.readUInt16BE(4) & 0x3ff)
  let value = ((micros & ((1n << 53n) - 1n)) << 10n) | clockId
  let out = ''
  for (let i = 0; i < 13; i++) {
    out = SORTABLE[Number(value & 31n)] + out
    value >>= 5n
  }
  return out
}
