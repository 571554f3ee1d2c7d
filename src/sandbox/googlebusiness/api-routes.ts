import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { quotaError, sendRpcError } from './google-errors.js'
import { BUSINESS_SCOPE, LEGACY_BUSINESS_SCOPE, SERVICES, type Service, type SimLocation } from './model.js'
import { GoogleBusinessSandbox } from './state.js'

/**
 * The read APIs: accounts (Account Management v1), locations (Business Information v1) and daily figures
 * (Performance v1), each under the path of its own host. Every call is authenticated (a live token with
 * the business scope), metered against its API's per-minute quota (or refused with a quota of 0 when the
 * project has no access), and answers only what the user manages. Pages follow Google's `pageSize` and
 * `pageToken` rules for each list.
 */

export const queryOf = (request: FastifyRequest) =>
  new URL(request.url, 'http://sandbox.invalid').searchParams

/** The caller's e-mail when the call may go on; otherwise the answer is sent and undefined returned. */
export function admitCall(
  sandbox: GoogleBusinessSandbox,
  request: FastifyRequest,
  reply: FastifyReply,
  service: Service,
): string | undefined {
  const token = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim()
  const grant = sandbox.grantOf(token)
  if (!grant) {
    sendRpcError(
      reply,
      'UNAUTHENTICATED',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'ACCESS_TOKEN_EXPIRED',
          domain: 'googleapis.com',
        },
      ],
    )
    return undefined
  }
  if (!grant.scopes.includes(BUSINESS_SCOPE) && !grant.scopes.includes(LEGACY_BUSINESS_SCOPE)) {
    sendRpcError(reply, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.', [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
        domain: 'googleapis.com',
      },
    ])
    return undefined
  }
  const refusedAt = sandbox.admit(service)
  if (refusedAt !== undefined) {
    const { status, body } = quotaError(service, refusedAt)
    reply.code(status).header('content-type', 'application/json; charset=UTF-8').send(body)
    return undefined
  }
  return grant.email
}

/** A page of `rows` from an opaque token, `size` of them (the list's default and maximum applied). */
export function pageOf<T>(
  rows: T[],
  query: URLSearchParams,
  limits: { default: number; max: number },
): { rows: T[]; next?: string } | string {
  const asked = query.get('pageSize')
  const size = asked === null ? limits.default : Number(asked)
  if (!Number.isInteger(size) || size < 0) return 'pageSize must be a positive number.'
  const token = query.get('pageToken')
  const from = token
    ? Number(
        Buffer.from(token, 'base64url')
          .toString('utf8')
          .replace(/^offset:/, ''),
      )
    : 0
  if (!Number.isInteger(from) || from < 0) return 'The page token is not valid.'
  const take = Math.min(size === 0 ? limits.default : size, limits.max)
  const page = rows.slice(from, from + take)
  const rest = from + take < rows.length
  return { rows: page, ...(rest ? { next: Buffer.from(`offset:${from + take}`).toString('base64url') } : {}) }
}

/** A location with only the fields its read mask names (its name always). */
export function locationView(location: SimLocation, mask: string[]) {
  const id = location.name.split('/')[1]
  const full: Record<string, unknown> = {
    name: location.name,
    title: location.title,
    storefrontAddress: {
      regionCode: location.regionCode,
      languageCode: 'en',
      postalCode: location.postalCode,
      locality: location.locality,
      addressLines: location.addressLines,
    },
    phoneNumbers: { primaryPhone: location.phone },
    websiteUri: location.websiteUri,
    metadata: {
      hasVoiceOfMerchant: location.verified,
      mapsUri: `https://maps.google.com/maps?cid=${id}`,
      placeId: `ChIJ${id}`,
    },
  }
  return Object.fromEntries(Object.entries(full).filter(([key]) => key === 'name' || mask.includes(key)))
}

const MASKABLE = new Set(['name', 'title', 'storefrontAddress', 'phoneNumbers', 'websiteUri', 'metadata'])

function readMask(query: URLSearchParams): string[] | string {
  const mask = query.get('readMask')
  if (!mask) return 'Field readMask is required.'
  const fields = mask.split(',').map((f) => f.trim())
  const unknown = fields.find((f) => !MASKABLE.has(f))
  return unknown ? `Invalid field mask: ${unknown}` : fields
}

export function registerApiRoutes(app: FastifyInstance, sandbox: GoogleBusinessSandbox): void {
  registerAccountRoutes(app, sandbox)
  registerLocationRoutes(app, sandbox)
  registerPerformanceRoute(app, sandbox)
}

function registerAccountRoutes(app: FastifyInstance, sandbox: GoogleBusinessSandbox) {
  const base = `/${SERVICES.accounts}/v1`
  app.get(`${base}/accounts`, async (request, reply) => {
    const email = admitCall(sandbox, request, reply, SERVICES.accounts)
    if (!email) return reply
    const page = pageOf(sandbox.accountsOf(email), queryOf(request), { default: 20, max: 20 })
    if (typeof page === 'string') return sendRpcError(reply, 'INVALID_ARGUMENT', page)
    return {
      accounts: page.rows.map((a) => ({
        name: a.name,
        accountName: a.accountName,
        type: a.type,
        role: 'PRIMARY_OWNER',
        verificationState: 'VERIFIED',
        vettedState: 'NOT_VETTED',
        permissionLevel: 'OWNER_LEVEL',
      })),
      ...(page.next ? { nextPageToken: page.next } : {}),
    }
  })
}

function registerLocationRoutes(app: FastifyInstance, sandbox: GoogleBusinessSandbox) {
  const base = `/${SERVICES.locations}/v1`
  app.get<{ Params: { account: string } }>(`${base}/accounts/:account/locations`, async (request, reply) => {
    const email = admitCall(sandbox, request, reply, SERVICES.locations)
    if (!email) return reply
    const account = sandbox.accounts.get(`accounts/${request.params.account}`)
    if (!account || account.owner !== email)
      return sendRpcError(reply, 'PERMISSION_DENIED', 'The caller does not have permission')
    const query = queryOf(request)
    const mask = readMask(query)
    if (typeof mask === 'string') return sendRpcError(reply, 'INVALID_ARGUMENT', mask)
    const page = pageOf(sandbox.locationsOf(account.name), query, { default: 10, max: 100 })
    if (typeof page === 'string') return sendRpcError(reply, 'INVALID_ARGUMENT', page)
    return {
      locations: page.rows.map((l) => locationView(l, mask)),
      ...(page.next ? { nextPageToken: page.next } : {}),
    }
  })

  app.get<{ Params: { location: string } }>(`${base}/locations/:location`, async (request, reply) => {
    const email = admitCall(sandbox, request, reply, SERVICES.locations)
    if (!email) return reply
    const location = sandbox.locations.get(`locations/${request.params.location}`)
    if (!location) return sendRpcError(reply, 'NOT_FOUND', 'Requested entity was not found.')
    if (sandbox.accounts.get(location.account)?.owner !== email)
      return sendRpcError(reply, 'PERMISSION_DENIED', 'The caller does not have permission')
    const mask = readMask(queryOf(request))
    if (typeof mask === 'string') return sendRpcError(reply, 'INVALID_ARGUMENT', mask)
    return locationView(location, mask)
  })
}

const METRICS = new Set([
  'BUSINESS_IMPRESSIONS_DESKTOP_MAPS',
  'BUSINESS_IMPRESSIONS_DESKTOP_SEARCH',
  'BUSINESS_IMPRESSIONS_MOBILE_MAPS',
  'BUSINESS_IMPRESSIONS_MOBILE_SEARCH',
  'BUSINESS_CONVERSATIONS',
  'BUSINESS_DIRECTION_REQUESTS',
  'CALL_CLICKS',
  'WEBSITE_CLICKS',
  'BUSINESS_BOOKINGS',
  'BUSINESS_FOOD_ORDERS',
  'BUSINESS_FOOD_MENU_CLICKS',
])

function rangeOf(query: URLSearchParams): { start: number; end: number } | string {
  const date = (edge: string) => {
    const [year, month, day] = ['year', 'month', 'day'].map((part) =>
      Number(query.get(`dailyRange.${edge}.${part}`)),
    )
    if (![year, month, day].every((n) => Number.isInteger(n) && (n as number) > 0)) return undefined
    return GoogleBusinessSandbox.dayNumber({
      year: year as number,
      month: month as number,
      day: day as number,
    })
  }
  const start = date('startDate')
  const end = date('endDate')
  if (start === undefined || end === undefined) return 'dailyRange needs a complete startDate and endDate.'
  if (end < start) return 'dailyRange ends before it starts.'
  return { start, end }
}

function registerPerformanceRoute(app: FastifyInstance, sandbox: GoogleBusinessSandbox) {
  const base = `/${SERVICES.performance}/v1`
  app.get<{ Params: { call: string } }>(`${base}/locations/:call`, async (request, reply) => {
    const [id, method] = request.params.call.split(':')
    if (method !== 'fetchMultiDailyMetricsTimeSeries')
      return sendRpcError(reply, 'NOT_FOUND', 'Requested entity was not found.')
    const email = admitCall(sandbox, request, reply, SERVICES.performance)
    if (!email) return reply
    const location = sandbox.locations.get(`locations/${id}`)
    if (!location) return sendRpcError(reply, 'NOT_FOUND', 'Requested entity was not found.')
    if (sandbox.accounts.get(location.account)?.owner !== email)
      return sendRpcError(reply, 'PERMISSION_DENIED', 'The caller does not have permission')
    const query = queryOf(request)
    const metrics = query.getAll('dailyMetrics')
    if (metrics.length === 0 || metrics.some((m) => !METRICS.has(m)))
      return sendRpcError(reply, 'INVALID_ARGUMENT', 'dailyMetrics must name one or more daily metrics.')
    const range = rangeOf(query)
    if (typeof range === 'string') return sendRpcError(reply, 'INVALID_ARGUMENT', range)
    return {
      multiDailyMetricTimeSeries: [
        { dailyMetricTimeSeries: metrics.map((metric) => series(sandbox, location.name, metric, range)) },
      ],
    }
  })
}

function series(
  sandbox: GoogleBusinessSandbox,
  location: string,
  metric: string,
  range: { start: number; end: number },
) {
  const datedValues = []
  for (let day = range.start; day <= range.end; day++) {
    const at = new Date(day * 86_400_000)
    const value = sandbox.dailyValue(location, metric, day)
    datedValues.push({
      date: { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() },
      // Google leaves the value out of a day whose figure is zero.
      ...(value > 0 ? { value: String(value) } : {}),
    })
  }
  return { dailyMetric: metric, timeSeries: { datedValues } }
}
