import { open } from 'node:fs/promises'
import { createFile, type Movie, MP4BoxBuffer } from 'mp4box'
import type { VideoContainer } from '../../core/media-port.js'
import { MediaError } from '../../core/media-port.js'
import { probeWebm } from './probe-webm.js'

/** Video facts read from the container's header; frames are never read. */
export interface VideoProbe {
  container: VideoContainer
  /** RFC 6381 codec string for MP4/MOV (`avc1.64001f`), short name for WebM (`vp9`). */
  codec: string | undefined
  durationMs: number | undefined
  /** Displayed width, after any rotation in the track header. */
  width: number | undefined
  height: number | undefined
  /** MP4/MOV only: the first audio track's codec (`mp4a.40.2`); undefined when there is none or it is unknown. */
  audioCodec?: string | undefined
  /** MP4/MOV only: frames per second from the sample table, when it has samples. */
  frameRate?: number | undefined
}

/** A moov box bigger than this is refused instead of read (real ones are kilobytes to a few megabytes). */
const MAX_MOOV_BYTES = 64 * 1024 * 1024

/** Positioned reads: an open file, or a remote file read with HTTP ranges (see range-probe.ts). */
export interface ByteSource {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>
}

/** Probes an MP4, MOV or WebM file without loading its frames. @throws {MediaError} `unsupported_type` */
export async function probeVideo(path: string, container: VideoContainer): Promise<VideoProbe> {
  const file = await open(path, 'r')
  try {
    const { size } = await file.stat()
    return await probeVideoSource(file, size, container)
  } finally {
    await file.close()
  }
}

/** {@link probeVideo} over any {@link ByteSource} of `size` bytes. */
export async function probeVideoSource(
  source: ByteSource,
  size: number,
  container: VideoContainer,
): Promise<VideoProbe> {
  if (container === 'webm') return { container, ...(await probeWebm(source, size)) }
  return { container, ...(await probeIsoBmff(source, size)) }
}

interface TopBox {
  type: string
  start: number
  size: number
}

/** Top-level boxes from their 8/16-byte headers; an mdat of any size costs one small read to skip. */
async function topLevelBoxes(file: ByteSource, fileSize: number): Promise<TopBox[]> {
  const boxes: TopBox[] = []
  const head = Buffer.alloc(16)
  let at = 0
  while (at + 8 <= fileSize && boxes.length < 1000) {
    const { bytesRead } = await file.read(head, 0, 16, at)
    if (bytesRead < 8) break
    let size = head.readUInt32BE(0)
    const type = head.toString('latin1', 4, 8)
    if (size === 1) {
      if (bytesRead < 16) break
      size = Number(head.readBigUInt64BE(8))
    } else if (size === 0) size = fileSize - at
    if (size < 8) break
    boxes.push({ type, start: at, size })
    // Nothing after moov is needed: a fragmented file's many moof/mdat pairs are not walked.
    if (type === 'moov') break
    at += size
  }
  return boxes
}

async function probeIsoBmff(file: ByteSource, fileSize: number) {
  const boxes = await topLevelBoxes(file, fileSize)
  const moov = boxes.find((box) => box.type === 'moov')
  if (!moov)
    throw new MediaError(
      'unsupported_type',
      'The video has no moov box (an incomplete or streaming-only MP4)',
    )
  if (moov.size > MAX_MOOV_BYTES)
    throw new MediaError('unsupported_type', 'The video header (moov) is implausibly large')
  if (moov.start + moov.size > fileSize)
    throw new MediaError('unsupported_type', 'The video is truncated: its moov box is cut off')
  // mp4box gets ftyp + moov only, as if they were the whole file: the sample tables are parsed, mdat is not.
  const wanted = boxes
    .filter((box) => box.type === 'ftyp')
    .slice(0, 1)
    .concat(moov)
  const parts = await Promise.all(
    wanted.map(async (box) => {
      const buffer = Buffer.alloc(box.size)
      await file.read(buffer, 0, box.size, box.start)
      return buffer
    }),
  )
  const info = parseMovie(Buffer.concat(parts))
  const track = info.videoTracks[0]
  if (!track) throw new MediaError('unsupported_type', 'The file has no video track')
  const timescale = info.timescale || 1
  const fragmented = info.fragment_duration ? info.fragment_duration.num / info.fragment_duration.den : 0
  const seconds = info.duration > 0 ? info.duration / timescale : fragmented
  const rotation = rotationOf(track.matrix)
  const width = track.video?.width || track.track_width || undefined
  const height = track.video?.height || track.track_height || undefined
  const sideways = rotation === 90 || rotation === 270
  const trackSeconds = track.timescale ? track.duration / track.timescale : 0
  return {
    codec: track.codec || undefined,
    audioCodec: info.audioTracks[0]?.codec || undefined,
    frameRate:
      track.nb_samples > 0 && trackSeconds > 0
        ? Math.round((track.nb_samples / trackSeconds) * 100) / 100
        : undefined,
    durationMs: seconds > 0 ? Math.round(seconds * 1000) : undefined,
    width: sideways ? height : width,
    height: sideways ? width : height,
  }
}

function parseMovie(bytes: Buffer): Movie {
  const mp4 = createFile()
  let movie: Movie | undefined
  let failure: string | undefined
  mp4.onReady = (info) => {
    movie = info
  }
  mp4.onError = (_module, message) => {
    failure = message
  }
  const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)
  try {
    mp4.appendBuffer(MP4BoxBuffer.fromArrayBuffer(copy, 0))
    mp4.flush()
  } catch (error) {
    failure = (error as Error).message
  }
  if (!movie)
    throw new MediaError(
      'unsupported_type',
      `The video header could not be parsed${failure ? `: ${failure}` : ''}`,
    )
  return movie
}

/** Rotation in degrees from a track matrix [a, b, u, c, d, v, x, y, w] (16.16 fixed point). */
function rotationOf(matrix: ArrayLike<number> | undefined): number {
  if (!matrix || matrix.length < 5) return 0
  const degrees = Math.round((Math.atan2(matrix[1]!, matrix[0]!) * 180) / Math.PI)
  return (degrees + 360) % 360
}
