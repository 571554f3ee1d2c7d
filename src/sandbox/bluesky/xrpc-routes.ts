import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AtprotoSpec } from './contract.js'
import { cidOf } from './ids.js'
import { postRecordProblem } from './post-record.js'
import type { BlueskySandboxState, SandboxAccount, StoredRecord } from './state.js'
import { defineXrpc, invalidRequest, sendXrpcError, XrpcError } from './xrpc.js'

/**
 * The XRPC methods Herald's Bluesky adapter calls, answered as a PDS (with its AppView behind it)
 * answers them, and the PLC directory's `GET /plc/<did>`.
 */

const RECORD_KEY = /^[A-Za-z0-9._:~-]{1,512}$/
const NSID = /^[a-zA-Z]([a-zA-Z0-9-]{0,62})(\.[a-zA-Z0-9-]{1,63}){2,}$/
const BLOB_MAX_BYTES = 100_000_000

type Json = Record<string, unknown>

/** The simulator's address as the account's PDS: the configured public URL, or where the request came. */
function pdsUrl(state: BlueskySandboxState, request: FastifyRequest): string {
  return state.publicUrl ?? `${request.protocol}://${request.host}${state.prefix}`
}

function requireAccount(state: BlueskySandboxState, repo: string | undefined): SandboxAccount {
  const account = repo ? state.findAccount(repo) : undefined
  if (!account) throw invalidRequest(`Could not find repo: ${repo ?? ''}`)
  return account
}

function postView(state: BlueskySandboxState, record: StoredRecord) {
  const author = state.accounts.get(record.did)!
  return {
    uri: record.uri,
    cid: record.cid,
    author: { did: author.did, handle: author.handle, displayName: author.displayName },
    record: record.value,
    indexedAt: record.indexedAt,
    ...state.engagement.get(record.uri),
  }
}

export function registerXrpcRoutes(
  app: FastifyInstance,
  state: BlueskySandboxState,
  spec: AtprotoSpec | undefined,
) {
  const define = (method: Parameters<typeof defineXrpc>[3], handler: Parameters<typeof defineXrpc>[4]) =>
    defineXrpc(app, state, spec, method, handler)

  app.get('/plc/:did', async (request, reply) => {
    const { did } = request.params as { did: string }
    const account = state.accounts.get(did)
    if (!account) return reply.code(404).send({ message: `DID not registered: ${did}` })
    return reply.type('application/did+ld+json').send({
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
      id: account.did,
      alsoKnownAs: [`at://${account.handle}`],
      verificationMethod: [],
      service: [
        { id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: pdsUrl(state, request) },
      ],
    })
  })

  define({ nsid: 'com.atproto.identity.resolveHandle', method: 'GET', auth: 'none' }, ({ param }) => {
    const handle = param('handle') ?? ''
    const account = handle.startsWith('did:') ? undefined : state.findAccount(handle)
    if (!account) throw invalidRequest('Unable to resolve handle')
    return { did: account.did }
  })

  define({ nsid: 'com.atproto.server.createSession', method: 'POST', auth: 'none' }, ({ request }) => {
    const body = request.body as { identifier: string; password: string }
    const account = state.findAccount(body.identifier)
    // An app password opens a session; the account password of a sandbox account is never known.
    if (!account?.appPasswords.has(body.password))
      throw new XrpcError(401, 'AuthenticationRequired', 'Invalid identifier or password')
    return state.openSession(account)
  })

  define(
    { nsid: 'com.atproto.server.refreshSession', method: 'POST', auth: 'refresh' },
    ({ account, tokenId }) => {
      // The refresh token rotates: the one just used is spent.
      state.liveRefreshTokens.delete(tokenId!)
      const { email: _email, emailConfirmed: _confirmed, ...session } = state.openSession(account!)
      return session
    },
  )

  define({ nsid: 'com.atproto.server.getSession', method: 'GET', auth: 'access' }, ({ account }) => ({
    handle: account!.handle,
    did: account!.did,
    email: account!.email,
    emailConfirmed: true,
    active: true,
  }))

  define({ nsid: 'com.atproto.repo.uploadBlob', method: 'POST', auth: 'access' }, ({ request, account }) => {
    const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
    if (bytes.length > BLOB_MAX_BYTES) throw invalidRequest('request entity too large', 'PayloadTooLarge')
    const mimeType = String(request.headers['content-type'] ?? 'application/octet-stream')
      .split(';')[0]!
      .trim()
    const cid = cidOf(bytes)
    state.blobs.set(`${account!.did} ${cid}`, { cid, did: account!.did, mimeType, size: bytes.length, bytes })
    return { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: bytes.length } }
  })

  define(
    { nsid: 'com.atproto.repo.createRecord', method: 'POST', auth: 'access' },
    ({ request, account }) => {
      const body = request.body as { repo: string; collection: string; rkey?: string; record: unknown }
      if (state.findAccount(body.repo)?.did !== account!.did)
        throw new XrpcError(401, 'AuthenticationRequired', 'Authentication Required')
      if (!NSID.test(body.collection)) throw invalidRequest(`Invalid collection: ${body.collection}`)
      const rkey = body.rkey ?? state.newRecordKey()
      if (!RECORD_KEY.test(rkey) || rkey === '.' || rkey === '..')
        throw invalidRequest(`Invalid record key: ${rkey}`)
      const record = body.record as Json
      if (typeof record !== 'object' || record === null || Array.isArray(record))
        throw invalidRequest('Invalid record: must be an object')
      if (record.$type !== body.collection)
        throw invalidRequest(`Invalid $type: expected ${body.collection}, got ${String(record.$type)}`)
      if (body.collection === 'app.bsky.feed.post') {
        const problem = postRecordProblem(state, account!.did, record)
        if (problem) throw invalidRequest(`Invalid app.bsky.feed.post record: ${problem}`)
      }
      const stored = state.putRecord(account!.did, body.collection, rkey, record)
      // The repository refuses a second write at a key it holds: the PDS fails the request with a 500.
      if (!stored) throw new XrpcError(500, 'InternalServerError', 'Internal Server Error')
      return {
        uri: stored.uri,
        cid: stored.cid,
        commit: {
          cid: cidOf(Buffer.from(`${stored.uri} ${stored.cid}`), 'dag-cbor'),
          rev: state.newRevision(),
        },
        validationStatus: 'valid',
      }
    },
  )

  define({ nsid: 'com.atproto.repo.getRecord', method: 'GET', auth: 'optional' }, ({ param }) => {
    const account = requireAccount(state, param('repo'))
    const uri = `at://${account.did}/${param('collection')}/${param('rkey')}`
    const record = state.records.get(uri)
    if (!record) throw invalidRequest(`Could not locate record: ${uri}`, 'RecordNotFound')
    return { uri: record.uri, cid: record.cid, value: record.value }
  })

  // Where avatars are read from; a plain route, since it answers bytes rather than JSON.
  app.get('/xrpc/com.atproto.sync.getBlob', async (request, reply) => {
    const { did, cid } = request.query as { did?: string; cid?: string }
    const blob = state.blobs.get(`${did} ${cid}`)
    if (!blob) return sendXrpcError(reply, invalidRequest('Blob not found', 'BlobNotFound'))
    return reply.type(blob.mimeType).send(blob.bytes)
  })

  define({ nsid: 'app.bsky.feed.getPosts', method: 'GET', auth: 'access' }, ({ query }) => {
    const posts = query
      .filter(([name]) => name === 'uris')
      .map(([, uri]) => state.records.get(uri))
      .filter((record): record is StoredRecord => record?.collection === 'app.bsky.feed.post')
    return { posts: posts.map((record) => postView(state, record)) }
  })

  define({ nsid: 'app.bsky.actor.getProfile', method: 'GET', auth: 'access' }, ({ param }) => {
    const account = state.findAccount(param('actor') ?? '')
    if (!account) throw invalidRequest('Profile not found')
    return {
      did: account.did,
      handle: account.handle,
      displayName: account.displayName,
      followersCount: account.followersCount,
      followsCount: account.followsCount,
      postsCount: state.postsOf(account.did).length,
      indexedAt: account.createdAt,
      createdAt: account.createdAt,
    }
  })

  app.all('/xrpc/*', async (_request, reply) =>
    sendXrpcError(reply, new XrpcError(501, 'MethodNotImplemented', 'Method Not Implemented')),
  )
}
