import { randomBytes } from 'node:crypto'

let counter = randomBytes(3).readUIntBE(0, 3)
const processRandom = randomBytes(5)

/**
 * A 24-hex, time-ordered id in the layout of a Mongo ObjectId: 4 bytes of seconds, 5 random bytes fixed
 * per process, and a 3-byte counter. Ids made later in one process sort after earlier ones.
 */
export function newId(nowMs: number = Date.now()): string {
  counter = (counter + 1) % 0xffffff
  const buffer = Buffer.alloc(12)
  buffer.writeUInt32BE(Math.floor(nowMs / 1000), 0)
  processRandom.copy(buffer, 4)
  buffer.writeUIntBE(counter, 9, 3)
  return buffer.toString('hex')
}
