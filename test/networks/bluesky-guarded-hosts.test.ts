import { createServer, type Server } from 'node:http'
import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PublishFailure } from '../../src/adapters/adapter.js'
import { findPds, type SessionContext } from '../../src/adapters/bluesky/session.js'
import { createXrpc } from '../../src/adapters/bluesky/xrpc.js'
import type { LookupFn } from '../../src/platform/egress/safe-fetch.js'
import { createLogger } from '../../src/platform/logger.js'

const logger = createLogger(
  'silent',
  new Writable({
    write(_c, _e, done) {
      done()
    },
  }),
)

/** Answers every name with `address` (the network's DNS as an attacker would set it up). */
const resolvesTo =
  (address: string): LookupFn =>
  async () => [{ address, family: address.includes(':') ? 6 : 4 }]

function context(options: { lookup: LookupFn; document?: unknown; fetched?: string[] }): SessionContext {
  const { xrpc } = createXrpc({ http: fetch, logger, now: () => Date.now() }, { timeoutMs: 2_000 })
  return {
    xrpc,
    getJson: async <T>(url: string) => {
      options.fetched?.push(url)
      return options.document as T
    },
    logger,
    serviceUrl: 'https://bsky.social',
    plcUrl: 'https://plc.directory',
    allowLocalPds: false,
    lookup: options.lookup,
  }
}

const documentNaming = (did: string, endpoint: string) => ({
  id: did,
  service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: endpoint }],
})

async function refusal(promise: Promise<unknown>): Promise<PublishFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(PublishFailure)
  return error as PublishFailure
}

describe('Bluesky PDS and DID hosts go through the public-address rule', () => {
  it.each([
    ['loopback', '127.0.0.1'],
    ['a private network', '10.20.30.40'],
    ['the cloud metadata address', '169.254.169.254'],
    ['IPv6 loopback', '::1'],
  ])(
    'a DID document whose PDS name resolves to %s is refused, without naming the answer',
    async (_l, address) => {
      const did = 'did:plc:abcdefghijklmnopqrstuvwx'
      const failure = await refusal(
        findPds(
          context({
            lookup: resolvesTo(address),
            document: documentNaming(did, 'https://pds.friendly.example'),
          }),
          did,
        ),
      )
      expect(failure.kind).toBe('invalid_content')
      expect(failure.options.code).toBe('PdsNotPublic')
      expect(failure.message).toMatch(/public https addresses/)
      expect(failure.message).not.toContain(address)
    },
  )

  it('a did:web whose host resolves inside the network is refused before its document is fetched', async () => {
    const fetched: string[] = []
    const failure = await refusal(
      findPds(context({ lookup: resolvesTo('192.168.1.10'), fetched }), 'did:web:pds.inside.example'),
    )
    expect(failure.options.code).toBe('PdsNotPublic')
    expect(fetched).toEqual([])
    expect(failure.message).not.toContain('192.168.1.10')
  })

  it('a PDS on a public address passes', async () => {
    const did = 'did:plc:abcdefghijklmnopqrstuvwx'
    const endpoint = await findPds(
      context({
        lookup: resolvesTo('93.184.216.34'),
        document: documentNaming(did, 'https://pds.public.example'),
      }),
      did,
    )
    expect(endpoint).toBe('https://pds.public.example')
  })
})

describe('Bluesky calls never follow a redirect', () => {
  let inside: Server
  let redirector: Server
  let insideHits = 0
  let redirectorUrl = ''

  beforeAll(async () => {
    inside = createServer((_req, res) => {
      insideHits += 1
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"secret":true}')
    })
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve))
    const insidePort = (inside.address() as { port: number }).port
    redirector = createServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${insidePort}/latest/meta-data/` }).end()
    })
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve))
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as { port: number }).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => inside.close(resolve))
    await new Promise((resolve) => redirector.close(resolve))
  })

  it('a DID document or XRPC answer that redirects is a failure, and the redirect target is never asked', async () => {
    const { xrpc, getJson } = createXrpc({ http: fetch, logger, now: () => Date.now() }, { timeoutMs: 2_000 })
    await refusal(getJson(`${redirectorUrl}/.well-known/did.json`))
    await refusal(xrpc({ service: redirectorUrl, nsid: 'com.atproto.server.describeServer' }))
    expect(insideHits).toBe(0)
  })
})
