import { sandboxPrefixes } from '../../adapters/registry.js'
import { AppError, invalid, notFound } from '../../platform/errors.js'
import { createSession, deleteSession, sessionCookieName } from '../accounts/sessions.js'
import type { AppContext } from '../app-context.js'

/**
 * `herald sandbox connect` (and the onboarding checklist's "Connect simulated profiles"): connects a
 * simulated profile through the whole connect flow of a running Herald in sandbox mode, as a browser would. A command line cannot sign in without the owner's
 * password, so it opens a short-lived dashboard session for the workspace's owner directly in the store
 * (which it shares with the server), then: GET /connect/<network> → the simulator's consent page →
 * POST the consent form as the given user → GET the callback → /channels (for Mastodon the handle names
 * the instance, `user@instance.example`, posted with the start form). Bluesky has no OAuth: the
 * simulator makes the account and an app password, and the /connect/bluesky form is posted with them.
 * The session is deleted at the end. Nothing here bypasses the flow's checks (state, PKCE, scopes,
 * CSRF, profile lookup).
 */

export type SandboxNetwork = keyof typeof sandboxPrefixes

export interface SandboxConnected {
  workspaceId: string
  connectionId: string
  platform: SandboxNetwork
  profileId: string
  username: string
  name: string
  isOrganization: boolean
  status: string
  /**
   * Every profile the connection made, this one first, when it made several: `googlebusiness` connects
   * each location of the business, `pinterest` every board of the account. Absent when it made one.
   */
  profiles?: SandboxConnected[]
}

const SESSION_TTL_MS = 5 * 60_000

/** The text of a Herald refusal page, for the error message. */
const pageText = (html: string) =>
  (/<div class="problem"><p>([\s\S]*?)<\/p>/.exec(html)?.[1] ?? html.slice(0, 200))
    .replace(/<[^>]+>/g, '')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))

interface SandboxConnectInput {
  workspaceId: string
  network: string
  username: string
  organization?: boolean
  /** The member to act as (the dashboard's signed-in person); the workspace's first owner by default. */
  userId?: string
}

export async function sandboxConnect(
  app: AppContext,
  input: SandboxConnectInput,
  http: typeof fetch = (url, init) => fetch(url, init),
): Promise<SandboxConnected> {
  if (!isSandboxNetwork(input.network))
    throw invalid(`sandbox connect knows ${Object.keys(sandboxPrefixes).join(', ')}, not ${input.network}`)
  const network: SandboxNetwork = input.network
  if (input.organization && network !== 'linkedin')
    throw invalid('--organization is for linkedin (Facebook connects Pages already)')
  if (network === 'mastodon' && !/^@?[A-Za-z0-9_]{1,30}@[^@\s]+$/.test(input.username))
    throw invalid('For mastodon, --username is a handle that names its instance, e.g. user@instance.example')
  await checkSandboxServer(app.config.publicBaseUrl, http)
  const db = app.store.db
  const actingUserId = await actingMember(app, input)
  const { token, session } = await createSession(
    db,
    { userId: actingUserId, workspaceId: input.workspaceId, ttlMs: SESSION_TTL_MS },
    app.clock.now(),
  )
  const cookie = `${sessionCookieName(app.config.dashboard.secureCookies)}=${encodeURIComponent(token)}`
  const browser = browserFor(app.config.publicBaseUrl, http, cookie)
  try {
    const connectionIds =
      network === 'bluesky'
        ? [await signInWithAppPassword(app, browser.send, cookie, input.username)]
        : await connectThroughConsent(app, browser, { network, input, csrf: session.csrfToken })
    const rows = []
    for (const id of connectionIds)
      rows.push(await connectedRow(app, { workspaceId: input.workspaceId, network }, id))
    const [first] = rows as [SandboxConnected, ...SandboxConnected[]]
    return rows.length > 1 ? { ...first, profiles: rows } : first
  } finally {
    await deleteSession(db, session.id)
  }
}

/** The member the command acts as: the one named, or the workspace's first owner. */
async function actingMember(app: AppContext, input: SandboxConnectInput): Promise<string> {
  let members = app.store.db
    .selectFrom('memberships')
    .select('user_id')
    .where('workspace_id', '=', input.workspaceId)
  members = input.userId ? members.where('user_id', '=', input.userId) : members.where('role', '=', 'owner')
  const owner = await members.orderBy('created_at').executeTakeFirst()
  if (!owner)
    throw notFound(
      input.userId
        ? `${input.userId} is not a member of workspace ${input.workspaceId}`
        : `No workspace ${input.workspaceId} with an owner`,
    )
  return owner.user_id
}

type Send = (url: string, init?: RequestInit) => Promise<Response>

/** What the command drives the server with, as a browser would: requests that never follow redirects. */
interface Browser {
  base: string
  cookie: string
  send: Send
  /** The absolute URL a redirect points to; anything else is an internal error naming `what`. */
  locationOf(response: Response, what: string): string
}

function browserFor(base: string, http: typeof fetch, cookie: string): Browser {
  return {
    base,
    cookie,
    async send(url, init = {}) {
      try {
        return await http(url, { ...init, redirect: 'manual' })
      } catch {
        throw new AppError(
          'invalid_request',
          `No Herald answered at ${base}. Start it with HERALD_SANDBOX=1 npm start (and the same PUBLIC_BASE_URL and database).`,
        )
      }
    },
    locationOf(response, what) {
      const location = response.headers.get('location')
      if (response.status < 300 || response.status >= 400 || !location)
        throw new AppError('internal', `${what} answered ${response.status} instead of a redirect`)
      return new URL(location, base).toString()
    },
  }
}

/**
 * The OAuth networks: start (the confirmation page's form), the simulator's consent page and its form, the
 * callback, and the choose-profiles page for a grant that reaches several. Answers the new connections'
 * ids (one, but every location of the business for Google Business Profile).
 */
async function connectThroughConsent(
  app: AppContext,
  browser: Browser,
  { network, input, csrf }: { network: SandboxNetwork; input: SandboxConnectInput; csrf: string },
): Promise<string[]> {
  const { base, cookie, send, locationOf } = browser
  // Starting is the confirmation page's form: a POST with the session's CSRF token.
  const start = await send(`${base}/connect/${network}`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrf,
      workspaceId: input.workspaceId,
      // Mastodon's start form names the instance: the part of the handle after its user name.
      ...(network === 'mastodon' ? { instance: input.username.replace(/^@/, '').split('@')[1]! } : {}),
    }).toString(),
  })
  if (network === 'mastodon' && start.status >= 400)
    throw invalid(`Mastodon cannot be connected: ${pageText(await start.text())}`)
  const authorize = locationOf(start, `POST /connect/${network}`)
  if (authorize.startsWith(`${base}/login`))
    throw invalid(
      `The Herald at ${base} does not share this command's database (${describeDatabase(app)}): run this command with the server's HERALD_DATA_DIR (or DATABASE_URL).`,
    )
  if (!authorize.startsWith(`${base}${sandboxPrefixes[network]}/`))
    throw new AppError(
      'internal',
      `The Herald at ${base} is not in sandbox mode (it sent the browser to ${new URL(authorize).origin}): restart it with HERALD_SANDBOX=1.`,
    )
  const consentPage = await send(authorize)
  if (consentPage.status !== 200)
    throw new AppError('internal', `The sandbox consent page answered ${consentPage.status}`)
  await consentPage.text()

  const consent = await consentForm(browser, network, authorize, input.username)
  const consented = await send(authorize.split('?')[0]!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: consent.form.toString(),
  })
  if (consented.status === 400)
    throw invalid(`The sandbox refused the consent: ${pageText(await consented.text())}`)
  const callback = locationOf(consented, 'The sandbox consent')
  let finished = await send(callback, { headers: { cookie } })
  if (finished.status >= 400) throw invalid(`The connection was refused: ${pageText(await finished.text())}`)
  if (network === 'facebook')
    finished = await chooseNamedPage(send, base, finished, cookie, {
      what: `Facebook Page named ${input.username}`,
      pick: (text) => new RegExp(`>\\s*${escapeRegExp(input.username)}\\b`).test(text),
    })
  if (network === 'linkedin')
    // The simulator's member administers two pages; --organization ticks the first, else the member.
    finished = await chooseNamedPage(send, base, finished, cookie, {
      what: input.organization
        ? `LinkedIn page administered by ${input.username}`
        : 'LinkedIn personal profile',
      pick: (text) =>
        (input.organization ? /· LinkedIn Page\s*$/ : /· LinkedIn Personal profile\s*$/).test(text),
    })
  if (network === 'googlebusiness' || network === 'pinterest')
    // Every location of the business, or every board of the account, is ticked: each a profile of its own.
    finished = await chooseNamedPage(send, base, finished, cookie, {
      what: network === 'pinterest' ? `board of ${input.username}` : `location of ${input.username}`,
      pick: () => true,
      all: true,
    })
  const connectionId = new URL(locationOf(finished, 'The connect callback')).searchParams.get('connected')
  if (!connectionId) throw new AppError('internal', 'The connect callback did not name the new connection')
  if (network === 'pinterest') return boardConnections(app, input.workspaceId, connectionId)
  if (network !== 'googlebusiness') return [connectionId]
  return locationConnections(app, input.workspaceId, connectionId, consent.profileIds)
}

/** The workspace's connections of the business's locations, the one the callback named first. */
async function locationConnections(
  app: AppContext,
  workspaceId: string,
  first: string,
  profileIds: readonly string[],
): Promise<string[]> {
  const rows = await app.store.db
    .selectFrom('connections')
    .select(['id', 'profile_id'])
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', 'googlebusiness')
    .where('profile_id', 'in', profileIds.length > 0 ? [...profileIds] : [''])
    .execute()
  const order = (id: string) => profileIds.indexOf(rows.find((r) => r.id === id)?.profile_id ?? '')
  return [
    first,
    ...rows
      .map((r) => r.id)
      .filter((id) => id !== first)
      .sort((a, b) => order(a) - order(b)),
  ]
}

/**
 * The simulator's consent form, filled as the given user granting every scope asked for; for Google
 * Business Profile, with the profile ids of the business's locations the grant will reach.
 */
async function consentForm(
  browser: Browser,
  network: SandboxNetwork,
  authorize: string,
  username: string,
): Promise<{ form: URLSearchParams; profileIds: string[] }> {
  const params = new URL(authorize).searchParams
  const form = new URLSearchParams()
  for (const [key, value] of params) form.append(key, value)
  const scopes = (params.get('scope') ?? '').split(/[\s,]+/).filter(Boolean)
  if (network === 'googlebusiness') {
    const business = await ensureBusiness(
      browser.send,
      `${browser.base}${sandboxPrefixes.googlebusiness}`,
      username,
    )
    form.set('account', business.email)
    for (const scope of scopes) form.append('granted', scope)
    form.set('decision', 'allow')
    return { form, profileIds: business.locations }
  }
  if (network !== 'youtube') {
    // X and Meta's consent pages take the user name and one granted_scope per ticked permission; a
    // Mastodon instance's, the user name on that instance.
    form.set('username', network === 'mastodon' ? username.replace(/^@/, '').split('@')[0]! : username)
    for (const scope of scopes) form.append('granted_scope', scope)
    form.set('decision', 'authorize')
  } else {
    await ensureYouTubeAccount(browser.send, `${browser.base}${sandboxPrefixes.youtube}`, username)
    form.set('account', username)
    for (const scope of scopes) form.append('granted', scope)
    form.set('decision', 'allow')
  }
  return { form, profileIds: [] }
}

/** The Business Profile simulator's business named `name` (made on first sight): its Google user's e-mail and locations. */
async function ensureBusiness(
  send: (url: string, init?: RequestInit) => Promise<Response>,
  sandboxUrl: string,
  name: string,
): Promise<{ email: string; locations: string[] }> {
  const made = await send(`${sandboxUrl}/_sandbox/businesses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })
  const business = (await made.json()) as {
    email?: string
    locations?: Array<{ name: string }>
    message?: string
  }
  if (made.status !== 201 || !business.email)
    throw invalid(
      `The Google Business Profile simulator refused the business: ${business.message ?? made.status}`,
    )
  return { email: business.email, locations: (business.locations ?? []).map((l) => l.name) }
}

/** One made-up profile on every network, the ones the README's sandbox demo connects. */
export const DEMO_PROFILES: ReadonlyArray<{ network: SandboxNetwork; username: string }> = [
  { network: 'twitter', username: 'demo_user' },
  { network: 'youtube', username: 'creator@example.com' },
  { network: 'bluesky', username: 'demo' },
  { network: 'threads', username: 'demo_user' },
  { network: 'linkedin', username: 'Jo Park' },
  { network: 'facebook', username: 'Corner Shop' },
  { network: 'instagram', username: 'demo.maker' },
  { network: 'googlebusiness', username: 'Corner Bakery' },
  { network: 'tiktok', username: 'demo.creator' },
  { network: 'pinterest', username: 'demo_pins' },
  { network: 'mastodon', username: 'demo@instance.example' },
]

/**
 * Connects {@link DEMO_PROFILES} into a workspace, one after the other, as `userId`. A network that refuses
 * (its simulator replaced by a real service, say) is reported with the reason and the others go on.
 */
export async function connectDemoProfiles(
  app: AppContext,
  input: { workspaceId: string; userId: string },
  http?: typeof fetch,
): Promise<{ connected: SandboxConnected[]; failed: Array<{ network: SandboxNetwork; reason: string }> }> {
  const connected: SandboxConnected[] = []
  const failed: Array<{ network: SandboxNetwork; reason: string }> = []
  for (const profile of DEMO_PROFILES) {
    try {
      const made = await sandboxConnect(app, { ...input, ...profile }, http)
      connected.push(...(made.profiles ?? [made]))
    } catch (error) {
      failed.push({ network: profile.network, reason: (error as Error).message })
    }
  }
  return { connected, failed }
}

/** The connection as the command prints it, read back from the store the server wrote it to. */
async function connectedRow(
  app: AppContext,
  { workspaceId, network }: { workspaceId: string; network: SandboxNetwork },
  connectionId: string,
): Promise<SandboxConnected> {
  const row = await app.store.db
    .selectFrom('connections')
    .selectAll()
    .where('id', '=', connectionId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst()
  if (!row) throw new AppError('internal', `Connection ${connectionId} is not in this database`)
  return {
    workspaceId: row.workspace_id,
    connectionId: row.id,
    platform: network,
    profileId: row.profile_id,
    username: row.username,
    name: row.name,
    isOrganization: row.is_organization === 1,
    status: row.status,
  }
}

/** The account's boards connected in the workspace, the one the callback named first. */
async function boardConnections(app: AppContext, workspaceId: string, first: string): Promise<string[]> {
  const named = await app.store.db
    .selectFrom('connections')
    .select('username')
    .where('id', '=', first)
    .executeTakeFirst()
  const rows = await app.store.db
    .selectFrom('connections')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('platform', '=', 'pinterest')
    .where('username', '=', named?.username ?? '')
    .where('id', '!=', first)
    .where('status', '!=', 'removed')
    .orderBy('id')
    .execute()
  return [first, ...rows.map((r) => r.id)]
}

/**
 * Bluesky: the simulator creates the account `<username>.bsky.social` (or finds it) with a new app
 * password, then the dashboard's /connect/bluesky form is read for its CSRF token and posted with the
 * handle and that password, as a person types them. Answers the new connection's id.
 */
async function signInWithAppPassword(
  app: AppContext,
  send: (url: string, init?: RequestInit) => Promise<Response>,
  cookie: string,
  username: string,
): Promise<string> {
  const base = app.config.publicBaseUrl
  const form = await send(`${base}/connect/bluesky`, { headers: { cookie } })
  if (form.status >= 300 && form.status < 400 && form.headers.get('location')?.startsWith('/login'))
    throw invalid(
      `The Herald at ${base} does not share this command's database (${describeDatabase(app)}): run this command with the server's HERALD_DATA_DIR (or DATABASE_URL).`,
    )
  const html = await form.text()
  if (form.status !== 200) throw invalid(`Bluesky cannot be connected: ${pageText(html)}`)
  // The form names the simulator only when Bluesky goes to it (no real PDS configured in sandbox mode).
  if (!html.includes(`${sandboxPrefixes.bluesky}/_sandbox/accounts`))
    throw invalid(
      `The Herald at ${base} connects Bluesky to the PDS named by HERALD_BLUESKY_SERVICE_URL, not to the simulator: connect from /connect/bluesky with an app password of that PDS.`,
    )
  // The form is rendered by the dashboard's JSX (a void element may end in "/>").
  const csrf = /<input type="hidden" name="csrf" value="([^"]*)"\s*\/?>/.exec(html)?.[1]
  if (!csrf) throw new AppError('internal', 'The Bluesky connect form carries no CSRF token')

  const made = await send(`${base}${sandboxPrefixes.bluesky}/_sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username }),
  })
  const account = (await made.json()) as { handle?: string; appPassword?: string; message?: string }
  if (made.status !== 201 || !account.handle || !account.appPassword)
    throw invalid(`The Bluesky simulator refused the account: ${account.message ?? made.status}`)

  const signedIn = await send(`${base}/connect/bluesky`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      csrf: decodeEntities(csrf),
      identifier: account.handle,
      appPassword: account.appPassword,
    }).toString(),
  })
  const location = signedIn.headers.get('location')
  const connectionId = location ? new URL(location, base).searchParams.get('connected') : null
  if (!connectionId) throw invalid(`The connection was refused: ${pageText(await signedIn.text())}`)
  return connectionId
}

const isSandboxNetwork = (network: string): network is SandboxNetwork =>
  Object.hasOwn(sandboxPrefixes, network)

/**
 * A grant that reaches several profiles (Facebook, LinkedIn) leads from the callback to the
 * choose-profiles page: tick the first profile `pick` accepts (by its label) and submit, as a person would.
 */
async function chooseNamedPage(
  send: (url: string, init?: RequestInit) => Promise<Response>,
  base: string,
  answer: Response,
  cookie: string,
  choice: { what: string; pick: (labelHtml: string) => boolean; all?: boolean },
): Promise<Response> {
  let page = answer
  if (page.status >= 300 && page.status < 400) {
    const location = new URL(page.headers.get('location') ?? '/', base)
    if (location.searchParams.has('connected')) return page
    page = await send(location.toString(), { headers: { cookie } })
  }
  const html = await page.text()
  const formMatch =
    /<form[^>]*method="post"[^>]*action="([^"]*\/choose\/[^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html)
  if (!formMatch) throw new AppError('internal', 'The connection did not offer the choose-profiles page')
  const [, action, body] = formMatch as unknown as [string, string, string]
  const form = new URLSearchParams()
  for (const hidden of body.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
    form.append(hidden[1] as string, decodeEntities(hidden[2] as string))
  const boxes = [...body.matchAll(/<label[^>]*>([\s\S]*?)<\/label>/g)].filter(
    (label) => /type="checkbox"/.test(label[1] as string) && choice.pick(label[1] as string),
  )
  const ticked = (choice.all ? boxes : boxes.slice(0, 1))
    .map((label) => /name="([^"]+)"[^>]*value="([^"]+)"/.exec(label[1] as string))
    .filter((box): box is RegExpExecArray => box !== null)
  if (ticked.length === 0) throw invalid(`The choose-profiles page lists no ${choice.what}`)
  for (const box of ticked) form.append(box[1] as string, decodeEntities(box[2] as string))
  return send(new URL(decodeEntities(action), base).toString(), {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  })
}

/** The entities the dashboard's renderer writes in an attribute (numbered ones as older pages did), decoded. */
const decodeEntities = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export const describeDatabase = (app: AppContext) =>
  app.store.dialect === 'sqlite' ? `SQLite in ${app.config.dataDir}` : 'Postgres from DATABASE_URL'

/**
 * Asks the server this command will drive whether it runs and is in sandbox mode, so each way of getting
 * it wrong ends with the setting to change.
 */
async function checkSandboxServer(base: string, http: typeof fetch) {
  let health: { sandbox?: unknown }
  try {
    const response = await http(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) })
    health = (await response.json()) as { sandbox?: unknown }
  } catch {
    throw invalid(
      `No Herald answered at ${base}. Start it with HERALD_SANDBOX=1 npm start, or point this command at the running one by setting the same PORT (or PUBLIC_BASE_URL) it uses.`,
    )
  }
  if (health.sandbox !== true)
    throw invalid(`The Herald at ${base} is not in sandbox mode: restart it with HERALD_SANDBOX=1 npm start.`)
}

/** The YouTube simulator picks accounts by e-mail; one that does not exist yet is created with a channel. */
async function ensureYouTubeAccount(
  send: (url: string, init?: RequestInit) => Promise<Response>,
  sandboxUrl: string,
  email: string,
) {
  if (!email.includes('@'))
    throw invalid('For youtube, --username is the Google account e-mail, e.g. creator@example.com')
  const accounts = (await (await send(`${sandboxUrl}/_sandbox/accounts`)).json()) as Array<{ email: string }>
  if (accounts.some((account) => account.email === email.toLowerCase())) return
  const local = email.split('@')[0]!.replace(/[^A-Za-z0-9_]/g, '')
  await send(`${sandboxUrl}/_sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email,
      name: local,
      channel: { title: `${local}'s channel`, handle: `@${local}` },
    }),
  })
}
