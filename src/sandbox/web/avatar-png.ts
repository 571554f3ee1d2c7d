import { createHash } from 'node:crypto'
import { crc32, deflateSync } from 'node:zlib'

/**
 * The profile pictures the simulators hand out, as the networks hand out a picture's address: a small PNG
 * made from the account's id (two colours and a diagonal), the same for the same id, served by each
 * simulator under its web base (`_avatars/<id>.png`). Made in process, so a sandbox never needs a picture
 * from anywhere else.
 */

export const AVATAR_SIZE = 96

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/** An RGB PNG of `size`×`size` whose pixel at (x, y) is `paint(x, y)`. */
function png(size: number, paint: (x: number, y: number) => [number, number, number]): Buffer {
  const rows = Buffer.alloc(size * (1 + size * 3))
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 3)
    rows[row] = 0
    for (let x = 0; x < size; x++) rows.set(paint(x, y), row + 1 + x * 3)
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

const made = new Map<string, Buffer>()

/** The picture of the account `seed`. */
export function avatarPng(seed: string): Buffer {
  const known = made.get(seed)
  if (known) return known
  const hash = createHash('sha256').update(seed).digest()
  const base: [number, number, number] = [hash[0]! % 160, hash[1]! % 160, 96 + (hash[2]! % 160)]
  const light: [number, number, number] = [base[0] + 90, base[1] + 90, Math.min(255, base[2] + 60)]
  const picture = png(AVATAR_SIZE, (x, y) =>
    x + y < AVATAR_SIZE * (0.8 + (hash[3]! % 40) / 100) ? base : light,
  )
  if (made.size > 512) made.clear()
  made.set(seed, picture)
  return picture
}

/** The address of an account's picture under a simulator's web base (`…/sandbox/twitter/web`). */
export const avatarUrlUnder = (webBase: string, seed: string) =>
  `${webBase.replace(/\/+$/, '')}/_avatars/${encodeURIComponent(seed)}.png`
