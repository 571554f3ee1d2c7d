import type http from 'node:http'
import { parseRange } from '../../src/modules/media/http-range.js'
import { mp4Header } from './fixtures.js'
import { startServer, type TestServer } from './servers.js'

/**
 * A loopback server for one large virtual file (built from parts, never whole in memory) that counts
 * what it sends: body bytes, whole-file downloads, and 304 revalidations.
 */

export interface VirtualFile {
  size: number
  /** Bytes `start`..`end` inclusive. */
  slice(start: number, end: number): Buffer
}

/** A file of `parts`: real bytes, or `{ fill, length }` runs of one byte value. */
export function virtualFile(parts: (Buffer | { fill: number; length: number })[]): VirtualFile {
  const spans = [] as { at: number; part: Buffer | { fill: number; length: number } }[]
  let size = 0
  for (const part of parts) {
    spans.push({ at: size, part })
    size += part.length
  }
  return {
    size,
    slice(start, end) {
      const out = Buffer.alloc(end - start + 1)
      for (const { at, part } of spans) {
        const from = Math.max(start, at)
        const to = Math.min(end, at + part.length - 1)
        if (from > to) continue
        if (Buffer.isBuffer(part)) part.copy(out, from - start, from - at, to - at + 1)
        else out.fill(part.fill, from - start, to - start + 1)
      }
      return out
    },
  }
}

export interface RangeServer extends TestServer {
  /** Body bytes written, over all responses. */
  bytesSent(): number
  /** 200 answers carrying the whole file. */
  fullDownloads(): number
  /** 206 answers. */
  rangeAnswers(): number
  /** 304 answers. */
  notModified(): number
}

export async function startRangeServer(
  files: Record<string, VirtualFile>,
  options: { ranges: boolean; etag?: string },
): Promise<RangeServer> {
  let sent = 0
  let full = 0
  let partial = 0
  let unchanged = 0
  const handler: http.RequestListener = (req, res) => {
    const file = files[req.url ?? '']
    if (!file) return void res.writeHead(404).end()
    const headers: Record<string, string> = { 'content-type': 'video/mp4', 'accept-ranges': 'bytes' }
    if (options.etag) headers.etag = options.etag
    if (options.etag && req.headers['if-none-match'] === options.etag) {
      unchanged += 1
      return void res.writeHead(304, headers).end()
    }
    const range = options.ranges ? parseRange(req.headers.range, file.size) : { kind: 'full' as const }
    if (range.kind === 'unsatisfiable') return void res.writeHead(416).end()
    const [start, end] = range.kind === 'partial' ? [range.start, range.end] : [0, file.size - 1]
    if (range.kind === 'partial') {
      partial += 1
      headers['content-range'] = `bytes ${start}-${end}/${file.size}`
    } else full += 1
    res.writeHead(range.kind === 'partial' ? 206 : 200, {
      ...headers,
      'content-length': String(end - start + 1),
    })
    let at = start
    const pump = () => {
      while (at <= end) {
        const chunk = file.slice(at, Math.min(at + 1024 * 1024, end + 1) - 1)
        at += chunk.length
        sent += chunk.length
        if (!res.write(chunk)) return void res.once('drain', pump)
      }
      res.end()
    }
    res.on('close', () => res.removeAllListeners('drain'))
    pump()
  }
  const server = await startServer(handler)
  return {
    ...server,
    bytesSent: () => sent,
    fullDownloads: () => full,
    rangeAnswers: () => partial,
    notModified: () => unchanged,
  }
}

/** A 200 MB MP4 that costs nothing to build: ftyp, a filler mdat, and moov first or last. */
export function bigMp4(
  totalBytes: number,
  moov: 'start' | 'end',
  video = { width: 1080, height: 1920, durationMs: 42_000 },
): VirtualFile {
  const header = mp4Header(video)
  const ftyp = header.subarray(0, header.readUInt32BE(0))
  const movie = header.subarray(ftyp.length)
  const payload = totalBytes - header.length - 8
  const mdatHead = Buffer.alloc(8)
  mdatHead.writeUInt32BE(payload + 8)
  mdatHead.write('mdat', 4, 'latin1')
  const mdat = [mdatHead, { fill: 0x5a, length: payload }]
  return virtualFile(moov === 'start' ? [ftyp, movie, ...mdat] : [ftyp, ...mdat, movie])
}
