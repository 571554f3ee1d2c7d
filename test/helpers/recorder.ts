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
  }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
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
