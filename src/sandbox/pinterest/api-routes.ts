import type { FastifyInstance, FastifyRequest } from 'fastify'
import { checkPinterestRequest } from './contract.js'
import {
  authorize,
  CODES,
  pageOf,
  pinJson,
  pinterestError,
  publicBase,
  queryOf,
  withinAllowance,
} from './http.js'
import type { PinterestSandboxState, SandboxPin } from './state.js'

/**
 * Pinterest's v5 endpoints Herald reads, with Pinterest's own error bodies: the account, its boards (paged
 * by `bookmark`), a board and its pins (newest first, paged, behind the injector's listing lag), a pin, and
 * the pin and account analytics. Every request under `/v5` is first checked against the contract
 * (`./contract.ts`): one that breaks it is refused with 400 and kept in `violations`.
 */

const rawPath = (request: FastifyRequest, prefix: string) => request.url.split('?')[0]!.slice(prefix.length)

function bodyOf(request: FastifyRequest): unknown {
  if (request.body instanceof URLSearchParams) return Object.fromEntries(request.body)
  return Buffer.isBuffer(request.body) ? undefined : request.body
}

const BOARD_SCOPES = ['boards:read'] as const
const PIN_READ_SCOPES = ['boards:read', 'pins:read'] as const

export function registerContractCheck(app: FastifyInstance, state: PinterestSandboxState): void {
  app.addHook('preHandler', async (request, reply) => {
    const path = rawPath(request, state.prefix)
    if (!path.startsWith('/v5/')) return
    const headers: Record<string, string | undefined> = {}
    for (const [k, v] of Object.entries(request.headers)) headers[k] = Array.isArray(v) ? v.join(',') : v
    const { problems } = checkPinterestRequest({
      method: request.method,
      path,
      query: queryOf(request),
      headers,
      body: bodyOf(request),
    })
    if (problems.length === 0) return
    state.violations.push({ method: request.method, path, problems })
    return pinterestError(reply, 400, CODES.invalid, `Invalid parameters: ${problems.join('; ')}`)
  })
}

export function registerReadRoutes(app: FastifyInstance, state: PinterestSandboxState): void {
  app.get('/v5/user_account', async (request, reply) => {
    const grant = authorize(state, request, reply, ['user_accounts:read'])
    if (!grant || !withinAllowance(state, reply, grant, 'org_read')) return reply
    const account = state.accounts.get(grant.accountId)!
    const boards = [...state.boards.values()].filter((b) => b.accountId === account.id)
    return {
      account_type: 'BUSINESS',
      id: account.id,
      username: account.username,
      business_name: account.businessName,
      // Pinterest's own CDN address, as the real API gives one (the dashboard never loads it).
      profile_image: `https://i.pinimg.com/600x600_R/sandbox/${account.id}.jpg`,
      website_url: `https://${account.username.toLowerCase().replace(/[^a-z0-9]/g, '')}.example`,
      follower_count: account.followers,
      following_count: account.following,
      board_count: boards.length,
      pin_count: [...state.pins.values()].filter((p) => p.accountId === account.id).length,
      monthly_views: account.monthlyViews,
    }
  })

  app.get('/v5/boards', async (request, reply) => {
    const grant = authorize(state, request, reply, BOARD_SCOPES)
    if (!grant || !withinAllowance(state, reply, grant, 'org_read')) return reply
    const privacy = queryOf(request).privacy
    // Secret boards need boards:read_secret, which Herald does not ask for.
    const boards = [...state.boards.values()].filter(
      (b) =>
        b.accountId === grant.accountId &&
        b.privacy !== 'SECRET' &&
        (!privacy || privacy === 'ALL' || privacy === b.privacy),
    )
    const page = pageOf(request, boards)
    return { items: page.items.map((board) => boardJson(state, board.id)), bookmark: page.bookmark }
  })

  app.get<{ Params: { id: string } }>('/v5/boards/:id', async (request, reply) => {
    const grant = authorize(state, request, reply, BOARD_SCOPES)
    if (!grant || !withinAllowance(state, reply, grant, 'org_read')) return reply
    const board = state.boards.get(request.params.id)
    if (!board || board.accountId !== grant.accountId)
      return pinterestError(reply, 404, 404, 'Board not found.')
    return boardJson(state, board.id)
  })

  app.get<{ Params: { id: string } }>('/v5/boards/:id/pins', async (request, reply) => {
    const grant = authorize(state, request, reply, PIN_READ_SCOPES)
    if (!grant || !withinAllowance(state, reply, grant, 'org_read')) return reply
    const board = state.boards.get(request.params.id)
    if (!board || board.accountId !== grant.accountId)
      return pinterestError(reply, 404, 404, 'Board not found.')
    const pins = [...state.pins.values()]
      .filter((pin) => pin.boardId === board.id && state.listed(pin.createdAt))
      .sort(newestFirst)
    const page = pageOf(request, pins)
    const base = publicBase(state, request)
    return { items: page.items.map((pin) => pinJson(state, base, pin)), bookmark: page.bookmark }
  })

  app.get<{ Params: { id: string } }>('/v5/pins/:id', async (request, reply) => {
    const grant = authorize(state, request, reply, PIN_READ_SCOPES)
    if (!grant || !withinAllowance(state, reply, grant, 'org_read')) return reply
    const pin = state.pins.get(request.params.id)
    if (!pin || pin.accountId !== grant.accountId) return pinterestError(reply, 404, 404, 'Pin not found.')
    return pinJson(state, publicBase(state, request), pin)
  })

  registerAnalyticsRoutes(app, state)
}

const newestFirst = (a: SandboxPin, b: SandboxPin) => b.createdAt - a.createdAt || (b.id > a.id ? 1 : -1)

function boardJson(state: PinterestSandboxState, id: string) {
  const board = state.boards.get(id)!
  const account = state.accounts.get(board.accountId)
  const iso = `${new Date(board.createdAt).toISOString().slice(0, 19)}Z`
  return {
    id: board.id,
    name: board.name,
    description: board.description,
    privacy: board.privacy,
    owner: { username: account?.username ?? '' },
    created_at: iso,
    board_pins_modified_at: iso,
    collaborator_count: 0,
    follower_count: board.followers,
    pin_count: [...state.pins.values()].filter((p) => p.boardId === board.id).length,
    is_ads_only: false,
  }
}

const DAY_MS = 86_400_000
const seedOf = (text: string) => [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7)

/** Figures that grow with a pin's age, the same on every read. */
function pinFigures(pin: SandboxPin, now: number) {
  const days = Math.max(1, Math.ceil((now - pin.createdAt) / DAY_MS))
  const seed = seedOf(pin.id)
  const impressions = days * (40 + (seed % 60))
  return {
    IMPRESSION: impressions,
    SAVE: Math.floor(impressions / 25),
    PIN_CLICK: Math.floor(impressions / 12),
    OUTBOUND_CLICK: Math.floor(impressions / 30),
    TOTAL_REACTIONS: seed % 9,
    TOTAL_COMMENTS: seed % 4,
  }
}

function registerAnalyticsRoutes(app: FastifyInstance, state: PinterestSandboxState) {
  app.get<{ Params: { id: string } }>('/v5/pins/:id/analytics', async (request, reply) => {
    const grant = authorize(state, request, reply, PIN_READ_SCOPES)
    if (!grant || !withinAllowance(state, reply, grant, 'org_read')) return reply
    const pin = state.pins.get(request.params.id)
    if (!pin || pin.accountId !== grant.accountId) return pinterestError(reply, 404, 404, 'Pin not found.')
    const query = queryOf(request)
    const span = (Date.parse(query.end_date!) - Date.parse(query.start_date!)) / DAY_MS
    if (!(span >= 0) || span > 90)
      return pinterestError(reply, 400, 400, 'Invalid pins analytics parameters.')
    const wanted = query.metric_types!.split(',')
    const figures = pinFigures(pin, state.now()) as Record<string, number>
    const pick = (names: string[]) =>
      Object.fromEntries(names.filter((n) => n in figures).map((n) => [n, figures[n]!]))
    const period = wanted.filter((n) => !n.startsWith('TOTAL_'))
    return {
      all: {
        lifetime_metrics: pick(wanted.filter((n) => n.startsWith('TOTAL_'))),
        summary_metrics: pick(period),
        daily_metrics: [{ date: query.end_date, data_status: 'READY', metrics: pick(period) }],
      },
    }
  })

  app.get('/v5/user_account/analytics', async (request, reply) => {
    const grant = authorize(state, request, reply, ['user_accounts:read'])
    if (!grant || !withinAllowance(state, reply, grant, 'org_read')) return reply
    const query = queryOf(request)
    const pins = [...state.pins.values()].filter((pin) => pin.accountId === grant.accountId)
    const totals: Record<string, number> = { IMPRESSION: 0, SAVE: 0, PIN_CLICK: 0, OUTBOUND_CLICK: 0 }
    for (const pin of pins)
      for (const [name, value] of Object.entries(pinFigures(pin, state.now())))
        if (name in totals) totals[name] = (totals[name] ?? 0) + value
    totals.ENGAGEMENT = (totals.SAVE ?? 0) + (totals.PIN_CLICK ?? 0) + (totals.OUTBOUND_CLICK ?? 0)
    const wanted = query.metric_types?.split(',') ?? Object.keys(totals)
    const summary = Object.fromEntries(wanted.filter((n) => n in totals).map((n) => [n, totals[n]!]))
    return {
      all: {
        summary_metrics: summary,
        daily_metrics: [{ date: query.end_date, data_status: 'READY', metrics: summary }],
      },
    }
  })
}
