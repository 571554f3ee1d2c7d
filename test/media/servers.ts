import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** A throwaway HTTP server on 127.0.0.1 that records every request it receives. */
export interface TestServer {
  port: number
  url: string
  requests: { method: string; url: string }[]
  close(): Promise<void>
}

export async function startServer(
  handler: http.RequestListener = (_req, res) => res.end('ok'),
): Promise<TestServer> {
  const requests: { method: string; url: string }[] = []
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '' })
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A {@link startServer} answering any `.mp4` path with `video` and any other path with `jpeg`. */
export function serveJpegOrVideo(jpeg: Buffer, video: Buffer): Promise<TestServer> {
  return startServer((req, res) => {
    const isVideo = req.url?.endsWith('.mp4')
    const body = isVideo ? video : jpeg
    res.writeHead(200, {
      'content-type': isVideo ? 'video/mp4' : 'image/jpeg',
      'content-length': String(body.length),
    })
    res.end(body)
  })
}
