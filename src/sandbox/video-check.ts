import { createFile, type Movie, MP4BoxBuffer } from 'mp4box'

/**
 * What a simulated network sees in received video bytes: the ISO-BMFF container (MP4, or QuickTime by
 * its `qt  ` brand) and the first video track's codec, read with mp4box the way a real ingest would.
 * Anything else (WebM, a broken file, no video track) is a problem the simulator refuses.
 */

export type ReceivedVideo =
  | { ok: true; container: 'mp4' | 'mov'; codec: string }
  | { ok: false; problem: string }

export function inspectReceivedVideo(bytes: Buffer): ReceivedVideo {
  if (bytes.length < 12 || bytes.subarray(4, 8).toString('latin1') !== 'ftyp')
    return { ok: false, problem: 'not an MP4 or MOV file' }
  const container = bytes.subarray(8, 12).toString('latin1') === 'qt  ' ? 'mov' : 'mp4'
  const file = createFile()
  let movie: Movie | undefined
  file.onReady = (info) => {
    movie = info
  }
  file.onError = () => {}
  try {
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)
    file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(copy, 0))
    file.flush()
  } catch {
    return { ok: false, problem: 'the file could not be parsed' }
  }
  const codec = movie?.videoTracks[0]?.codec
  if (!movie) return { ok: false, problem: 'the file has no readable moov box' }
  if (!codec) return { ok: false, problem: 'the file has no video track' }
  return { ok: true, container, codec }
}

/** True for an H.264 (`avc1`/`avc3`) codec string. */
export const isH264 = (codec: string) => /^avc[13]\b/i.test(codec)
/** True for an HEVC (`hvc1`/`hev1`) codec string. */
export const isHevc = (codec: string) => /^(hvc1|hev1)\b/i.test(codec)
