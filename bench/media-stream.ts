import { createReadStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { pathToFileURL } from 'node:url'
import { probeFile } from '../src/media/probe.js'
import { createSafeFetcher } from '../src/media/safe-fetch.js'
import { writeLargeMp4 } from '../test/media/fixtures.js'

/**
 * A large video through the media path as the worker runs it: safe fetch from an HTTP server into a
 * temporary file, probe, then a streamed PUT to an upload server, while RSS is sampled every 50 ms.
 * Everything runs on 127.0.0.1 (the fetcher allows private addresses, as HERALD_ALLOW_PRIVATE_MEDIA=1 does).
 */

const MB = 1024 * 1024

export interface MediaStreamResult {
  sizeMb: number
  peakRssGrowthMb: number
  seconds: number
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

const close = (server: http.Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

/** Runs the path for an MP4 of `sizeMb` megabytes (MiB). */
export async function measureMediaStream(sizeMb: number): Promise<MediaStreamResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'herald-bench-media-'))
  const source = path.join(dir, 'video.mp4')
  const size = await writeLargeMp4(source, sizeMb * MB, { width: 1080, height: 1920, durationMs: 58_000 })

  const origin = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) })
    createReadStream(source).pipe(res)
  })
  let received = 0
  const upload = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      received += chunk.length
    })
    req.on('end', () => res.writeHead(201).end())
  })
  const originPort = await listen(origin)
  const uploadPort = await listen(upload)

  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  const baseline = process.memoryUsage.rss()
  let peak = baseline
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 50)
  const started = performance.now()
  try {
    const fetcher = createSafeFetcher({ allowPrivate: true })
    const fetched = await fetcher.fetchToFile(`http://127.0.0.1:${originPort}/video.mp4`, {
      maxBytes: 512 * MB,
    })
    try {
      const info = await probeFile(fetched)
      if (info.width !== 1080 || info.height !== 1920 || info.durationMs !== 58_000 || !info.isShortEligible)
        throw new Error(`unexpected probe: ${JSON.stringify(info)}`)
      const { size: onDisk } = await stat(fetched.path)
      const request = http.request({
        host: '127.0.0.1',
        port: uploadPort,
        method: 'PUT',
        path: '/upload',
        headers: { 'content-type': info.contentType, 'content-length': String(onDisk) },
      })
      const answered = new Promise<number>((resolve, reject) => {
        request.once('response', (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        request.once('error', reject)
      })
      await pipeline(createReadStream(fetched.path), request)
      const status = await answered
      if (status !== 201 || received !== size)
        throw new Error(`upload answered ${status} after ${received} of ${size} bytes`)
    } finally {
      await fetched.dispose()
    }
  } finally {
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage.rss())
    await close(origin)
    await close(upload)
    await rm(dir, { recursive: true, force: true })
  }
  const round = (n: number) => Math.round(n * 10) / 10
  return {
    sizeMb: round(size / MB),
    peakRssGrowthMb: round((peak - baseline) / MB),
    seconds: round((performance.now() - started) / 1000),
  }
}

/** The 256 MB case (the YouTube ceiling): peak RSS growth must stay under 64 MB. */
export function benchMediaStream(): Promise<MediaStreamResult> {
  return measureMediaStream(256)
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  benchMediaStream().then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`)
      process.exitCode = 1
    },
  )
}
