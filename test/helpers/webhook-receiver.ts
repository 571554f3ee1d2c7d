import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { Webhook as SvixWebhook } from 'svix'

/** One request as the receiver got it. */
export interface Received {
  id: string
  timestamp: string
  signature: string
  body: string
  event: { id: string; type: string; timestamp: string; workspaceId: string; data: any }
  at: number
}

export interface Receiver {
  url: string
  /** Every request that arrived, in arrival order (whatever it was answered). */
  requests: Received[]
  /** Requests answered 2xx. */
  accepted: Received[]
  /** Decides each answer; default 204. */
  answer: (request: Received) => number | Promise<number>
  /** Whether the secrets held verify this request (with standardwebhooks and with svix). */
  verify(request: Received, secret: string): { standard: boolean; svix: boolean }
  close(): Promise<void>
}

/** A real local receiver on 127.0.0.1 that records what it got: the oracle of the webhook tests. */
export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = []
  const accepted: Received[] = []
  const receiver: Receiver = {
    url: '',
    requests,
    accepted,
    answer: () => 204,
    verify(request, secret) {
      const headers = {
        'webhook-id': request.id,
        'webhook-timestamp': request.timestamp,
        'webhook-signature': request.signature,
      }
      const tries = (verifier: { verify(body: string, headers: Record<string, string>): unknown }) => {
        try {
          verifier.verify(request.body, headers)
          return true
        } catch {
          return false
        }
      }
      return { standard: tries(new Webhook(secret)), svix: tries(new SvixWebhook(secret)) }
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const received: Received = {
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        body,
        event: JSON.parse(body),
        at: Date.now(),
      }
      requests.push(received)
      const status = await receiver.answer(received)
      if (status >= 200 && status < 300) accepted.push(received)
      res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(status >= 300 ? `answered ${status}` : '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  return receiver
}

/** Ids that arrived 2xx more than once. */
export function duplicates(received: Received[]): string[] {
  const seen = new Set<string>()
  const twice = new Set<string>()
  for (const r of received) (seen.has(r.id) ? twice : seen).add(r.id)
  return [...twice]
}
