import { createWriteStream } from 'node:fs'
import { open } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { findSession, parseCookies, sessionCookieName } from '../../modules/accounts/sessions.js'
import type { AppContext } from '../../modules/app-context.js'
import { MAX_IMPORT_BYTES } from '../../modules/publishing/csv-import.js'
import { safeEqual } from '../../platform/crypto/safe-equal.js'
import { createTempDir, type TempDir } from '../../platform/temp-files.js'
import { redirectToLogin, returnPath } from './request.js'

/**
 * What the dashboard reads of a request body, and when: never before the session is known, so an
 * anonymous client cannot make Herald read (or store) a large body. A body is read only after
 * the session is known: {@link guardBody} runs before any parser and refuses an anonymous change (and an
 * upload whose query-string CSRF token does not match) without reading a byte of it. Each route then has
 * its own ceiling, checked against `Content-Length` up front and counted while reading: the form routes
 * {@link FORM_BODY_LIMIT}, the CSV import {@link IMPORT_UPLOAD_LIMIT}, and Compose's upload alone
 * {@link UPLOAD_LIMIT}, streamed to a temporary file rather than memory.
 */

export const FORM_BODY_LIMIT = 64 * 1024
export const IMPORT_UPLOAD_LIMIT = MAX_IMPORT_BYTES
export const UPLOAD_LIMIT = 100 * 1024 * 1024

const COMPOSE_UPLOAD = '/compose/upload'
const IMPORT_UPLOAD = '/import/upload'
/** Routes the page's script calls, answered in JSON. */
const SCRIPT_ROUTES = new Set([COMPOSE_UPLOAD, IMPORT_UPLOAD, '/compose/preflight'])
const pathOf = (request: FastifyRequest) => request.url.split('?')[0] ?? ''

export const isUploadRoute = (request: FastifyRequest) => pathOf(request) === COMPOSE_UPLOAD
export const isImportUploadRoute = (request: FastifyRequest) => pathOf(request) === IMPORT_UPLOAD

/** The most this route reads of a body. */
export function bodyLimitFor(request: FastifyRequest): number {
  const path = pathOf(request)
  if (path === COMPOSE_UPLOAD) return UPLOAD_LIMIT
  if (path === IMPORT_UPLOAD) return IMPORT_UPLOAD_LIMIT
  return FORM_BODY_LIMIT
}

export function tooLarge(): Error {
  return Object.assign(new Error('The request body is too large'), { statusCode: 413 })
}

/** A file body sent to a route that takes none (415, read no further). */
export function unsupportedType(): Error {
  return Object.assign(new Error('This address does not take that content type'), { statusCode: 415 })
}

/** A Compose upload, received into a private temporary folder; removed once the response is sent. */
export class ReceivedUpload {
  constructor(
    readonly file: string,
    readonly size: number,
    private readonly temp: TempDir,
  ) {}

  /** The file's first `length` bytes (type detection). */
  async head(length = 4096): Promise<Buffer> {
    const handle = await open(this.file, 'r')
    try {
      const buffer = Buffer.alloc(Math.min(length, this.size))
      await handle.read(buffer, 0, buffer.length, 0)
      return buffer
    } finally {
      await handle.close()
    }
  }

  dispose(): Promise<void> {
    return this.temp.dispose()
  }
}

/** Streams `payload` into a temporary file, failing with 413 past `limit` bytes. */
export async function receiveUpload(payload: Readable, limit: number): Promise<ReceivedUpload> {
  const temp = await createTempDir()
  const file = temp.file('upload')
  let size = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length
      callback(size > limit ? tooLarge() : null, chunk)
    },
  })
  try {
    await pipeline(payload, counter, createWriteStream(file, { mode: 0o600 }))
  } catch (error) {
    await temp.dispose()
    throw error
  }
  return new ReceivedUpload(file, size, temp)
}

/**
 * The dashboard's `onRequest` hook: before any body is read, a change (any method but GET/HEAD/OPTIONS)
 * needs a live session, an upload needs its CSRF token (in the query string, where it travels), and a
 * declared `Content-Length` must fit the route's limit. Refusals close the connection so that nothing of
 * the unread body is consumed.
 */
export async function guardBody(app: AppContext, request: FastifyRequest, reply: FastifyReply) {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return
  const path = pathOf(request)
  const declared = Number(request.headers['content-length'] ?? 0)
  const refuse = (status: number, message: string) => {
    reply.header('connection', 'close')
    if (SCRIPT_ROUTES.has(path)) return reply.code(status).send({ ok: false, message })
    if (status === 401) return redirectToLogin(reply, returnPath(app, request))
    throw Object.assign(new Error(message), { statusCode: status })
  }
  const tooLong = declared > bodyLimitFor(request)
  // A change a visitor without a session makes (signing in, answering an invitation from the sign-in page,
  // setting up a fresh instance, signing out) is declared so on its route, for this guard and the sign-in one.
  const access = request.routeOptions.config.guard?.access ?? 'signed-in'
  if (access !== 'signed-in') return tooLong ? refuse(413, 'The request body is too large.') : undefined
  const session = await findSession(
    app.store.db,
    parseCookies(request.headers.cookie)[sessionCookieName(app.config.dashboard.secureCookies)],
    app.clock.now(),
  )
  if (!session) return refuse(401, 'You are signed out; sign in again.')
  if (tooLong) return refuse(413, 'The request body is too large.')
  if (path === COMPOSE_UPLOAD || path === IMPORT_UPLOAD) {
    const sent = (request.query as Record<string, unknown> | undefined)?.csrf
    if (typeof sent !== 'string' || !sent || !safeEqual(sent, session.csrfToken))
      return refuse(403, 'This page expired; reload it and upload again.')
  }
}
