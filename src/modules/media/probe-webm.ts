import { MediaError } from '../../core/media-port.js'
import type { ByteSource } from './probe-video.js'

/**
 * A minimal EBML (Matroska/WebM) reader: walks the Segment's children reading only element headers,
 * loads Info and Tracks (small), and stops there; clusters of frames are skipped by their size, never read.
 */

export interface WebmFacts {
  codec: string | undefined
  durationMs: number | undefined
  width: number | undefined
  height: number | undefined
}

const ID = {
  ebml: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackType: 0x83,
  codecId: 0x86,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba,
  cluster: 0x1f43b675,
} as const

/** Info and Tracks larger than this are not plausible; refuse rather than read them. */
const MAX_HEADER_ELEMENT = 1024 * 1024
const UNKNOWN = -1

interface ElementHeader {
  id: number
  /** Bytes of the body, or UNKNOWN (streamed files may leave the Segment or a Cluster unsized). */
  size: number
  headerLength: number
}

/** Reads a variable-length integer at `at`: the ID form keeps its length marker, the size form drops it. */
function vint(buf: Buffer, at: number, keepMarker: boolean): { value: number; length: number } | undefined {
  const first = buf[at]
  if (first === undefined || first === 0) return undefined
  const length = Math.clz32(first) - 23
  if (at + length > buf.length) return undefined
  let value = keepMarker ? first : first & (0xff >> length)
  let allOnes = value === 0xff >> length
  for (let i = 1; i < length; i++) {
    const byte = buf[at + i]!
    value = value * 256 + byte
    if (byte !== 0xff) allOnes = false
  }
  return { value: !keepMarker && allOnes ? UNKNOWN : value, length }
}

function header(buf: Buffer, at: number): ElementHeader | undefined {
  const id = vint(buf, at, true)
  if (!id) return undefined
  const size = vint(buf, at + id.length, false)
  if (!size) return undefined
  return { id: id.value, size: size.value, headerLength: id.length + size.length }
}

/** The direct children of an element body held in memory. */
function children(body: Buffer): { id: number; data: Buffer }[] {
  const out: { id: number; data: Buffer }[] = []
  let at = 0
  while (at < body.length) {
    const h = header(body, at)
    if (!h || h.size === UNKNOWN) break
    const start = at + h.headerLength
    out.push({ id: h.id, data: body.subarray(start, start + h.size) })
    at = start + h.size
  }
  return out
}

const uint = (data: Buffer) => data.reduce((acc, byte) => acc * 256 + byte, 0)
const float = (data: Buffer) =>
  data.length === 4 ? data.readFloatBE(0) : data.length === 8 ? data.readDoubleBE(0) : undefined
const find = (items: { id: number; data: Buffer }[], id: number) => items.find((item) => item.id === id)?.data

async function readAt(file: ByteSource, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  const { bytesRead } = await file.read(buffer, 0, length, position)
  return buffer.subarray(0, bytesRead)
}

async function headerAt(file: ByteSource, position: number): Promise<ElementHeader | undefined> {
  return header(await readAt(file, position, 12), 0)
}

const codecNames: Record<string, string> = {
  V_VP8: 'vp8',
  V_VP9: 'vp9',
  V_AV1: 'av1',
  'V_MPEG4/ISO/AVC': 'avc1',
}

/** Probes a WebM file through an open handle. @throws {MediaError} `unsupported_type` for a broken header. */
export async function probeWebm(file: ByteSource, fileSize: number): Promise<WebmFacts> {
  const top = await headerAt(file, 0)
  if (!top || top.id !== ID.ebml || top.size === UNKNOWN || top.size > 4096)
    throw new MediaError('unsupported_type', 'The WebM file has no valid EBML header')
  const docType = find(children(await readAt(file, top.headerLength, top.size)), ID.docType)?.toString(
    'latin1',
  )
  if (docType !== 'webm' && docType !== 'matroska')
    throw new MediaError('unsupported_type', `Unsupported EBML document type: ${docType ?? 'none'}`)

  const segmentAt = top.headerLength + top.size
  const segment = await headerAt(file, segmentAt)
  if (!segment || segment.id !== ID.segment)
    throw new MediaError('unsupported_type', 'The WebM file has no Segment')
  const end =
    segment.size === UNKNOWN ? fileSize : Math.min(fileSize, segmentAt + segment.headerLength + segment.size)

  let info: Buffer | undefined
  let tracks: Buffer | undefined
  let at = segmentAt + segment.headerLength
  while (at < end && !(info && tracks)) {
    const h = await headerAt(file, at)
    if (!h || h.size === UNKNOWN) break
    const bodyAt = at + h.headerLength
    if (h.id === ID.info || h.id === ID.tracks) {
      if (h.size > MAX_HEADER_ELEMENT)
        throw new MediaError('unsupported_type', 'The WebM header is implausibly large')
      const body = await readAt(file, bodyAt, h.size)
      if (h.id === ID.info) info = body
      else tracks = body
    }
    at = bodyAt + h.size
  }
  if (!tracks) throw new MediaError('unsupported_type', 'The WebM file has no track list before its frames')

  const facts: WebmFacts = { codec: undefined, durationMs: undefined, width: undefined, height: undefined }
  if (info) {
    const fields = children(info)
    const scale = find(fields, ID.timecodeScale)
    const duration = find(fields, ID.duration)
    const ticks = duration ? float(duration) : undefined
    if (ticks !== undefined && ticks > 0)
      facts.durationMs = Math.round((ticks * (scale ? uint(scale) : 1_000_000)) / 1e6)
  }
  for (const entry of children(tracks).filter((item) => item.id === ID.trackEntry)) {
    const fields = children(entry.data)
    const type = find(fields, ID.trackType)
    if (!type || uint(type) !== 1) continue
    const codecId = find(fields, ID.codecId)?.toString('latin1').replace(/\0+$/, '')
    facts.codec = codecId ? (codecNames[codecId] ?? codecId.toLowerCase()) : undefined
    const video = find(fields, ID.video)
    if (video) {
      const picture = children(video)
      const width = find(picture, ID.pixelWidth)
      const height = find(picture, ID.pixelHeight)
      facts.width = width ? uint(width) : undefined
      facts.height = height ? uint(height) : undefined
    }
    break
  }
  return facts
}
