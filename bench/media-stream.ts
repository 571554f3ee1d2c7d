import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createReadStream } from 'node:fs'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import http from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { pathToFileURL } from 'node:url'
import { probeFile } from '../src/modules/media/probe.js'
import { createSafeFetcher } from '../src/platform/egress/safe-fetch.js'
import { writeLargeMp4 } from '../test/media/fixtures.js'

/**
 * A large video through the media path as the worker runs it: safe fetch from an HTTP server into a
 * temporary file, probe, then a streamed PUT to an upload server, while RSS is sampled every 50 ms.
 * Everything runs on 127.0.0.1 (the fetcher allows private addresses, as HERALD_ALLOW_PRIVATE_MEDIA=1 does).
 * The two servers run in a child process (media-stream-peer.ts), so the RSS measured is Herald's side only:
 * in one process their socket buffers moved the figure between 57 and 125 MB from run to run.
 */

const MB = 1024 * 1024

export interface MediaStreamResult {
  sizeMb: number
  peakRssGrowthMb: number
  seconds: number
}

/** Runs the path for an MP4 of `sizeMb` megabytes (MiB). */
export async function measureMediaStream(sizeMb: number): Promise<MediaStreamResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'herald-bench-media-'))
  const source = path.join(dir, 'video.mp4')
  const size = await writeLargeMp4(source, sizeMb * MB, { width: 1080, height: 1920, durationMs: 58_000 })

  const peer = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'media-stream-peer.ts'), source, String(size)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const [line] = (await once(peer.stdout, 'data')) as [Buffer]
  const { origin: originPort, upload: uploadPort } = JSON.parse(line.toString()) as {
    origin: number
    upload: number
  }

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
      const answered = new Promise<{ status: number; received: number }>((resolve, reject) => {
        request.once('response', (res) => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            body += chunk
          })
          res.on('end', () => resolve({ status: res.statusCode ?? 0, received: Number(body) }))
        })
        request.once('error', reject)
      })
      await pipeline(createReadStream(fetched.path), request)
      const { status, received } = await answered
      if (status !== 201 || received !== size)
        throw new Error(`upload answered ${status} after ${received} of ${size} bytes`)
    } finally {
      await fetched.dispose()
    }
  } finally {
    clearInterval(sampler)
    peak = Math.max(peak, process.memoryUsage.rss())
    peer.stdin.end()
    await once(peer, 'exit')
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
