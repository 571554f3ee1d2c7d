import { createReadStream } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The other side of the media-stream benchmark, in its own process so its buffers do not count in Herald's
 * RSS: an origin serving the file at argv[2] (`GET /video.mp4`) and an upload server counting what it
 * receives (`PUT /upload` answers 201 with the byte count). Prints `{"origin":port,"upload":port}` once
 * listening; exits when its stdin closes.
 */
const file = process.argv[2] as string
const size = Number(process.argv[3])

const origin = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(size) })
  createReadStream(file).pipe(res)
})
const upload = http.createServer((req, res) => {
  let received = 0
  req.on('data', (chunk: Buffer) => {
    received += chunk.length
  })
  req.on('end', () => res.writeHead(201, { 'content-type': 'text/plain' }).end(String(received)))
})
const listen = (server: http.Server) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  )
const ports = { origin: await listen(origin), upload: await listen(upload) }
process.stdout.write(`${JSON.stringify(ports)}\n`)
process.stdin.resume()
process.stdin.on('end', () => process.exit(0))
