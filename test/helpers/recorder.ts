import { createServer, type Server } from 'node:http'

/** A local stand-in network that records every publish it receives, optionally slowly or never answering. */
export interface Recorder {
  url: string
  received: Array<{ targetId: string; content: string; at: number }>
  /** Milliseconds before answering each publish. */
  delayMs: number
  /** Contents for which the recorder accepts the request but never answers (to kill a worker mid-send). */
  hangOn: Set<string>
  /** Resolves when a publish whose content is in hangOn has arrived. */
  hung(): Promise<void>
  /**
   * A token endpoint that rotates refresh tokens as X does: each refresh token works once; a reused one
   * is refused with invalid_grant. `refreshes` counts the accepted ones, `refused` the others.
   */
  tokens: { valid: string; refreshes: number; refused: number }
  close(): Promise<void>
}

export async function startRecorder(options: { delayMs?: number } = {}): Promise<Recorder> {
  let hungResolve: () => void = () => {}
  let hungPromise = new Promise<void>((resolve) => {
    hungResolve = resolve
  })
  const recorder: Omit<Recorder, 'url' | 'close'> = {
    received: [],
    delayMs: options.delayMs ?? 0,
    hangOn: new Set(),
    hung: () => hungPromise,
    tokens: { valid: 'refresh-0', refreshes: 0, refused: 0 },
  }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      if (req.url === '/token') {
        const { refreshToken } = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
          refreshToken: string
        }
        const tokens = recorder.tokens
        // A little slow, as a real token endpoint is: long enough for two processes to overlap.
        setTimeout(() => {
          if (refreshToken !== tokens.valid) {
            tokens.refused += 1
            res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}')
            return
          }
          tokens.refreshes += 1
          tokens.valid = `refresh-${tokens.refreshes}`
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ accessToken: `access-${tokens.refreshes}`, refreshToken: tokens.valid }))
        }, 150)
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as {
        targetId: string
        content: string
      }
      recorder.received.push({ ...body, at: Date.now() })
      if (recorder.hangOn.has(body.content)) {
        hungResolve()
        hungPromise = new Promise<void>((resolve) => {
          hungResolve = resolve
        })
        return
      }
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ id: `r${recorder.received.length}` }))
      }
      if (recorder.delayMs > 0) setTimeout(answer, recorder.delayMs)
      else answer()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return Object.assign(recorder, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}
