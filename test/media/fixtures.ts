import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import sharp from 'sharp'

/**
 * Media files built at test time, so the suites need no binary fixtures and no ffmpeg. The MP4 and WebM
 * builders write only what a prober reads (ftyp + moov, EBML header + Info + Tracks); the frames are
 * filler bytes, which is enough for probing, hosting and streaming tests.
 */

const u8 = (n: number) => Buffer.from([n & 0xff])
const u16 = (n: number) => {
  const b = Buffer.alloc(2)
  b.writeUInt16BE(n & 0xffff)
  return b
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n >>> 0)
  return b
}
const ascii = (s: string) => Buffer.from(s, 'latin1')

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload)
  return Buffer.concat([u32(body.length + 8), ascii(type), body])
}

const fullBox = (type: string, version: number, flags: number, ...payload: Buffer[]) =>
  box(type, u8(version), u8(flags >> 16), u16(flags & 0xffff), ...payload)

/** A 3x3 transformation matrix in the 16.16/2.30 layout of mvhd and tkhd. */
function matrix(rotation: 0 | 90 | 180 | 270): Buffer {
  const one = 0x00010000
  const [a, b, c, d] =
    rotation === 90
      ? [0, one, -one, 0]
      : rotation === 180
        ? [-one, 0, 0, -one]
        : rotation === 270
          ? [0, -one, one, 0]
          : [one, 0, 0, one]
  const out = Buffer.alloc(36)
  out.writeInt32BE(a, 0)
  out.writeInt32BE(b, 4)
  out.writeInt32BE(c, 12)
  out.writeInt32BE(d, 16)
  out.writeInt32BE(0x40000000, 32)
  return out
}

export interface Mp4Options {
  width: number
  height: number
  durationMs: number
  /** `qt  ` makes a QuickTime (.mov) file. Default `isom`. */
  brand?: string
  /** A tkhd rotation, as phones write for portrait video stored landscape. */
  rotation?: 0 | 90 | 180 | 270
}

/** ftyp + moov for one H.264 video track of the given size and duration (timescale 1000). */
export function mp4Header(options: Mp4Options): Buffer {
  const { width, height, durationMs } = options
  const brand = options.brand ?? 'isom'
  const timescale = 1000
  const ftyp = box(
    'ftyp',
    ascii(brand),
    u32(0x200),
    ascii(brand),
    ascii('iso2'),
    ascii('avc1'),
    ascii('mp41'),
  )
  const mvhd = fullBox(
    'mvhd',
    0,
    0,
    u32(0),
    u32(0),
    u32(timescale),
    u32(durationMs),
    u32(0x00010000),
    u16(0x0100),
    Buffer.alloc(10),
    matrix(0),
    Buffer.alloc(24),
    u32(2),
  )
  const tkhd = fullBox(
    'tkhd',
    0,
    3,
    u32(0),
    u32(0),
    u32(1),
    u32(0),
    u32(durationMs),
    Buffer.alloc(8),
    u16(0),
    u16(0),
    u16(0),
    u16(0),
    matrix(options.rotation ?? 0),
    u32(width * 0x10000),
    u32(height * 0x10000),
  )
  const mdhd = fullBox('mdhd', 0, 0, u32(0), u32(0), u32(timescale), u32(durationMs), u16(0x55c4), u16(0))
  const hdlr = fullBox('hdlr', 0, 0, u32(0), ascii('vide'), Buffer.alloc(12), ascii('VideoHandler\0'))
  const sps = Buffer.from([0x67, 0x64, 0x00, 0x1f, 0xac, 0xd9, 0x40, 0x50])
  const pps = Buffer.from([0x68, 0xeb, 0xe3, 0xcb, 0x22, 0xc0])
  const avcC = box(
    'avcC',
    Buffer.from([1, 0x64, 0x00, 0x1f, 0xff, 0xe1]),
    u16(sps.length),
    sps,
    u8(1),
    u16(pps.length),
    pps,
  )
  const avc1 = box(
    'avc1',
    Buffer.alloc(6),
    u16(1),
    u16(0),
    u16(0),
    Buffer.alloc(12),
    u16(width),
    u16(height),
    u32(0x00480000),
    u32(0x00480000),
    u32(0),
    u16(1),
    Buffer.alloc(32),
    u16(0x18),
    u16(0xffff),
    avcC,
  )
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), avc1),
    fullBox('stts', 0, 0, u32(0)),
    fullBox('stsc', 0, 0, u32(0)),
    fullBox('stsz', 0, 0, u32(0), u32(0)),
    fullBox('stco', 0, 0, u32(0)),
  )
  const minf = box(
    'minf',
    fullBox('vmhd', 0, 1, Buffer.alloc(8)),
    box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
    stbl,
  )
  const trak = box('trak', tkhd, box('mdia', mdhd, hdlr, minf))
  return Buffer.concat([ftyp, box('moov', mvhd, trak)])
}

/** A complete small MP4: header plus an mdat of `mdatBytes` filler bytes. */
export function mp4File(options: Mp4Options & { mdatBytes?: number }): Buffer<ArrayBuffer> {
  const mdat = Buffer.alloc(options.mdatBytes ?? 1024, 0x5a)
  return Buffer.concat([mp4Header(options), box('mdat', mdat)])
}

/**
 * Streams an MP4 of about `totalBytes` to `path` in 1 MB chunks: the header, then one large mdat. The
 * whole file is never in memory (used by the 256 MB streaming benchmark).
 */
export async function writeLargeMp4(path: string, totalBytes: number, options: Mp4Options): Promise<number> {
  const header = mp4Header(options)
  const mdatPayload = totalBytes - header.length - 8
  const out = createWriteStream(path)
  const write = async (chunk: Buffer) => {
    if (!out.write(chunk)) await once(out, 'drain')
  }
  await write(header)
  await write(Buffer.concat([u32(mdatPayload + 8), ascii('mdat')]))
  const chunk = Buffer.alloc(1024 * 1024, 0x5a)
  let left = mdatPayload
  while (left > 0) {
    const n = Math.min(left, chunk.length)
    await write(n === chunk.length ? chunk : chunk.subarray(0, n))
    left -= n
  }
  out.end()
  await once(out, 'finish')
  return header.length + 8 + mdatPayload
}

/** An EBML element with an 8-byte size field (valid, if not the most compact form). */
function ebml(id: number, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload)
  const idBytes = Buffer.from(
    id.toString(16).padStart(id > 0xffffff ? 8 : id > 0xffff ? 6 : id > 0xff ? 4 : 2, '0'),
    'hex',
  )
  const size = Buffer.alloc(8)
  size.writeBigUInt64BE(BigInt(body.length) | (1n << 56n))
  return Buffer.concat([idBytes, size, body])
}
const ebmlUint = (id: number, value: number) => ebml(id, u32(value))
const ebmlString = (id: number, value: string) => ebml(id, ascii(value))

export interface WebmOptions {
  width: number
  height: number
  durationMs?: number
  codec?: string
}

/** EBML header, then a Segment with Info (TimecodeScale 1 ms, Duration), Tracks (one video) and a Cluster. */
export function webmFile(options: WebmOptions): Buffer {
  const header = ebml(
    0x1a45dfa3,
    ebmlUint(0x4286, 1),
    ebmlUint(0x42f7, 1),
    ebmlUint(0x42f2, 4),
    ebmlUint(0x42f3, 8),
    ebmlString(0x4282, 'webm'),
    ebmlUint(0x4287, 4),
    ebmlUint(0x4285, 2),
  )
  const duration = Buffer.alloc(8)
  duration.writeDoubleBE(options.durationMs ?? 0)
  const info = ebml(
    0x1549a966,
    ebmlUint(0x2ad7b1, 1_000_000),
    ...(options.durationMs === undefined ? [] : [ebml(0x4489, duration)]),
    ebmlString(0x4d80, 'herald-test'),
  )
  const tracks = ebml(
    0x1654ae6b,
    ebml(
      0xae,
      ebmlUint(0xd7, 1),
      ebmlUint(0x73c5, 1),
      ebmlUint(0x83, 1),
      ebmlString(0x86, options.codec ?? 'V_VP9'),
      ebml(0xe0, ebmlUint(0xb0, options.width), ebmlUint(0xba, options.height)),
    ),
  )
  const cluster = ebml(0x1f43b675, ebmlUint(0xe7, 0), ebml(0xa3, Buffer.alloc(256, 0x11)))
  return Buffer.concat([header, ebml(0x18538067, info, tracks, cluster)])
}

/** Random RGB noise: incompressible, so a large one is far over any network's byte limit as PNG. */
export function noisePng(width: number, height: number): Promise<Buffer> {
  return sharp(noiseRaw(width, height), { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer()
}

function noiseRaw(width: number, height: number): Buffer {
  const raw = Buffer.alloc(width * height * 3)
  let seed = 0x2545f491
  for (let i = 0; i < raw.length; i++) {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    raw[i] = seed & 0xff
  }
  return raw
}

/** A flat-colour image in the given format. */
export function solidImage(
  width: number,
  height: number,
  format: 'png' | 'jpeg' | 'webp' | 'gif',
): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } })
    .toFormat(format)
    .toBuffer()
}
