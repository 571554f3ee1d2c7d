import { MediaError } from '../../core/media-port.js'
import { fileNameFromUrl, urlExtension } from '../../core/media-url.js'
import {
  type FetchedFile,
  type FetchOptions,
  type SafeFetcher,
  tooLarge,
  type Validators,
} from '../../platform/egress/safe-fetch.js'
import { detectType } from './detect-type.js'
import { type MediaInfo, videoInfo } from './probe.js'
import { type ByteSource, probeVideoSource, type VideoProbe } from './probe-video.js'

/**
 * Probes a remote video with HTTP range requests instead of downloading it: the first 256 KB (type,
 * caps, a WebM's Info and Tracks, an MP4's leading boxes), then only the blocks the prober reads (box
 * headers, and the moov box wherever it is). Images, and servers that ignore ranges, need the whole file.
 */

export type RangeProbe =
  | {
      kind: 'probed'
      info: MediaInfo
      head: Buffer
      /** A safe file name derived from the URL. */
      name: string
      extension: string
      validators: Validators
      /** Bytes received over all range requests. */
      bytesFetched: number
    }
  /** The server ignored the range and sent the whole file (the caller owns and disposes it). */
  | { kind: 'full'; file: FetchedFile }
  /** Not a video (images are read whole), or the file needs more reads than a probe should make. */
  | { kind: 'needs_full' }

const FIRST_BYTES = 256 * 1024
const BLOCK = 64 * 1024
/** Range requests after the first; a file that needs more is read whole instead. */
const MAX_REQUESTS = 32
/** Bytes over all ranges (a moov box is at most 64 MB; see probe-video.ts). */
const MAX_RANGE_BYTES = 80 * 1024 * 1024

class OverBudget extends Error {}

export async function probeByRanges(
  fetcher: SafeFetcher,
  url: string,
  options: FetchOptions,
): Promise<RangeProbe> {
  const first = await fetcher.fetchRange(url, { start: 0, end: FIRST_BYTES - 1 }, options)
  if (first.kind === 'full') return first
  const { totalSize } = first
  const head = first.bytes.subarray(0, 4096)
  const extension = urlExtension(url)
  const detected = detectType(head, extension)
  if (detected?.kind !== 'video') return { kind: 'needs_full' }
  const cap = options.capForHead ? Math.min(options.maxBytes, options.capForHead(head)) : options.maxBytes
  if (totalSize > cap) throw tooLarge(totalSize, cap)

  const blocks = new Map<number, Buffer>()
  for (let at = 0; at < first.bytes.length; at += BLOCK)
    blocks.set(at / BLOCK, first.bytes.subarray(at, at + BLOCK))
  let requests = 0
  let bytesFetched = first.bytes.length

  /** Fetches blocks `from`..`to` (inclusive) in one range request. */
  async function fetchBlocks(from: number, to: number): Promise<void> {
    const start = from * BLOCK
    const end = Math.min((to + 1) * BLOCK, totalSize) - 1
    requests += 1
    bytesFetched += end - start + 1
    if (requests > MAX_REQUESTS || bytesFetched > MAX_RANGE_BYTES) throw new OverBudget()
    const answer = await fetcher.fetchRange(url, { start, end }, options)
    if (answer.kind === 'full') {
      await answer.file.dispose()
      throw new OverBudget()
    }
    if (answer.totalSize !== totalSize)
      throw new MediaError('fetch_failed', 'The file changed while it was being checked')
    for (let block = from; block <= to; block++)
      blocks.set(block, answer.bytes.subarray((block - from) * BLOCK, (block - from + 1) * BLOCK))
  }

  const source: ByteSource = {
    async read(buffer, offset, length, position) {
      const end = Math.min(position + length, totalSize)
      if (end <= position) return { bytesRead: 0 }
      const last = Math.floor((end - 1) / BLOCK)
      for (let block = Math.floor(position / BLOCK); block <= last; block++) {
        if (blocks.has(block)) continue
        let to = block
        while (to < last && !blocks.has(to + 1)) to++
        await fetchBlocks(block, to)
        block = to
      }
      for (let at = position; at < end; ) {
        const block = blocks.get(Math.floor(at / BLOCK)) as Buffer
        const within = at % BLOCK
        const n = Math.min(block.length - within, end - at)
        block.copy(buffer, offset + (at - position), within, within + n)
        at += n
      }
      return { bytesRead: end - position }
    },
  }

  let video: VideoProbe
  try {
    video = await probeVideoSource(source, totalSize, detected.format as VideoProbe['container'])
  } catch (error) {
    if (error instanceof OverBudget) return { kind: 'needs_full' }
    throw error
  }
  return {
    kind: 'probed',
    info: videoInfo(detected, totalSize, video),
    head,
    name: fileNameFromUrl(url),
    extension,
    validators: first.validators,
    bytesFetched,
  }
}
