import { randomBytes } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Credentials, Profile, PublishRequest } from '../../src/adapters/adapter.js'
import { MediaError, type MediaKind, type MediaPort, type PreparedMedia } from '../../src/core/media-port.js'

/**
 * What the suites of a network that fetches media by URL (Meta, Threads) stand on: a test server that
 * hands out source files at `/src/:name` and a media port that hosts each prepared file on the same
 * server at `/hosted/:id` (as Herald's `/media/...` does), so the simulator's fetcher downloads it.
 */
export interface MediaHost {
  /** The server's origin, once it listens. */
  origin(): string
  src(name: string): string
  media: MediaPort
  /** Every URL the media port handed out. */
  hosted: string[]
  /** Makes the next hosted file answer 404 (Herald's copy unreachable for the network). */
  breakHosting(): void
}

/** Adds the source and hosting routes to `server` (before it listens); `filePrefix` names the temp files. */
export function hostMedia(
  server: FastifyInstance,
  sources: Map<string, { type: string; bytes: Buffer }>,
  filePrefix: string,
): MediaHost {
  const hostedFiles = new Map<string, { type: string; bytes: Buffer }>()
  let broken = false
  server.get('/src/:name', async (request, reply) => {
    const file = sources.get((request.params as { name: string }).name)
    if (!file) return reply.code(404).send('no')
    return reply.type(file.type).send(file.bytes)
  })
  server.get('/hosted/:id', async (request, reply) => {
    const file = hostedFiles.get((request.params as { id: string }).id)
    if (!file) return reply.code(404).send('no')
    return reply.type(file.type).send(file.bytes)
  })
  const origin = () => {
    const address = server.server.address()
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  }
  const hosted: string[] = []
  const media: MediaPort = {
    async prepare(url) {
      const response = await fetch(url).catch(() => undefined)
      if (!response?.ok) throw new MediaError('fetch_failed', `Could not fetch ${url}`)
      const bytes = Buffer.from(await response.arrayBuffer())
      const type = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!
      const kind: MediaKind = type.startsWith('video/') ? 'video' : 'image'
      const id = randomBytes(8).toString('hex')
      if (!broken) hostedFiles.set(id, { type, bytes })
      broken = false
      const publicUrl = `${origin()}/hosted/${id}`
      hosted.push(publicUrl)
      const file = path.join(tmpdir(), `${filePrefix}${id}`)
      await writeFile(file, bytes)
      const prepared: PreparedMedia = {
        path: file,
        contentType: type,
        size: bytes.length,
        kind,
        name: path.basename(new URL(url).pathname),
        publicUrl,
        dispose: () => rm(file, { force: true }),
      }
      return prepared
    },
  }
  return {
    origin,
    src: (name) => `${origin()}/src/${name}`,
    media,
    hosted,
    breakHosting: () => {
      broken = true
    },
  }
}

export interface SentRequest {
  method: string
  url: string
  auth?: string
  body?: string
}

/** `fetch`, recording every request an adapter sends into `requests`. */
export function recordingFetch(requests: SentRequest[]): typeof fetch {
  return async (input, init) => {
    const auth = new Headers(init?.headers).get('authorization') ?? undefined
    requests.push({
      method: init?.method ?? 'GET',
      url: String(input),
      ...(auth ? { auth } : {}),
      ...(init?.body ? { body: String(init.body) } : {}),
    })
    return fetch(input, init)
  }
}

/**
 * Submits a simulator's consent page for `authorize` as a browser would: `username` authorizes every one
 * of `scopes` except `drop`. The redirect's location.
 */
export async function approveConsent(
  authorize: string,
  username: string,
  scopes: readonly string[],
  drop: readonly string[] = [],
) {
  const form = new URLSearchParams(new URL(authorize).searchParams)
  form.set('username', username)
  form.set('decision', 'authorize')
  for (const scope of scopes) if (!drop.includes(scope)) form.append('granted_scope', scope)
  const consent = await fetch(authorize.split('?')[0]!, { method: 'POST', body: form, redirect: 'manual' })
  return consent.headers.get('location')!
}

/** A publish request for `profile` with a fresh target id. */
export function publishRequest(
  profile: Profile,
  credentials: Credentials,
  content: string,
  mediaUrls: string[],
  extra: Partial<PublishRequest> = {},
): PublishRequest {
  return {
    targetId: `t-${randomBytes(4).toString('hex')}`,
    profile,
    credentials,
    content,
    mediaUrls,
    signal: new AbortController().signal,
    ...extra,
  }
}

/** `request` with the progress the adapter saves kept in `progress`, as the target row keeps it. */
export function keepingProgress(request: PublishRequest) {
  const progress: Record<string, string> = {}
  const req: PublishRequest = {
    ...request,
    saveProgress: async (p) => {
      Object.assign(progress, p)
    },
  }
  return { req, progress }
}

/**
 * `request` sent by a worker that dies the moment `step` (by default the container id) is on the target
 * (its publish rejects), with the progress it saved and the retry a new worker sends from that progress.
 */
export function diesOnceSaved(request: PublishRequest, step = 'container') {
  const progress: Record<string, string> = {}
  const stop = new AbortController()
  const first: PublishRequest = {
    ...request,
    signal: stop.signal,
    saveProgress: async (p) => {
      Object.assign(progress, p)
      if (p[step]) stop.abort()
    },
  }
  const resumed = (): PublishRequest => ({
    ...first,
    signal: new AbortController().signal,
    progress: { ...progress },
    saveProgress: async () => {},
  })
  return { first, progress, resumed }
}
