import { createHash, randomBytes } from 'node:crypto'

/**
 * The identifiers a PDS hands out, in their real shapes: `did:plc` (24 base32 characters), CIDv1 in
 * base32 (raw for blobs, dag-cbor for records), TIDs (13 base32-sortable characters) and app passwords
 * (`xxxx-xxxx-xxxx-xxxx`).
 */

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'
const SORTABLE = '234567abcdefghijklmnopqrstuvwxyz'

function base32(bytes: Uint8Array): string {
  let bits = 0
  let value = 0
  let out = ''
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31]
  return out
}

/** The `did:plc` of a handle: stable for one handle, so a restarted demo finds the same account again. */
export function plcDidFor(handle: string): string {
  return `did:plc:${base32(createHash('sha256').update(`sandbox:${handle}`).digest()).slice(0, 24)}`
}

const RAW = 0x55
const DAG_CBOR = 0x71

/** A CIDv1 (sha2-256) of `bytes`, base32 with the `b` prefix: `bafkrei...` for raw blobs. */
export function cidOf(bytes: Uint8Array, codec: 'raw' | 'dag-cbor' = 'raw'): string {
  const digest = createHash('sha256').update(bytes).digest()
  const prefix = Uint8Array.of(0x01, codec === 'raw' ? RAW : DAG_CBOR, 0x12, 0x20)
  return `b${base32(Buffer.concat([prefix, digest]))}`
}

/** A TID for `micros` since the epoch with a random clock id, as a PDS makes record keys and revisions. */
export function tidAt(micros: number): string {
  let value = (BigInt(Math.floor(micros)) << 10n) | BigInt(randomBytes(2).readUInt16BE(0) & 0x3ff)
  let out = ''
  for (let i = 0; i < 13; i++) {
    out = SORTABLE[Number(value & 31n)] + out
    value >>= 5n
  }
  return out
}

/** A new app password in Bluesky's format. */
export function newAppPassword(): string {
  const chars = base32(randomBytes(10)).slice(0, 16)
  return chars.match(/.{4}/g)!.join('-')
}
