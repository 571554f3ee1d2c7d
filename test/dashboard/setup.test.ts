import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isInstanceAdministrator } from '../../src/modules/accounts/administrator.js'
import { announceSetup, setupCodeMatches, withdrawSetupCode } from '../../src/modules/accounts/setup-codes.js'
import { openStore } from '../../src/platform/db/db.js'
import { backends } from '../helpers/backends.js'
import { createBrowser } from '../helpers/browser.js'
import { freePort, type Harness, startHarness } from '../helpers/harness.js'
import { type HeraldProcess, inheritedEnv, spawnHerald } from '../helpers/herald-cluster.js'

/**
 * The setup page of a fresh instance: where `/` and `/login` lead, who may use it (this machine, or
 * anyone holding the code the start line printed), that it makes exactly one owner however many try at
 * once, and that it is gone once anybody exists. Requests from other machines are injected with their
 * socket address, so the check reads the real client address, as it does behind a proxy.
 */

const OWNER = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  password: 'a long password',
  passwordAgain: 'a long password',
  workspace: 'Analytical Engines',
}

interface Client {
  /** The socket's peer address (light-my-request's default is 127.0.0.1). */
  remoteAddress?: string
  headers?: Record<string, string>
}

/** GET /setup then POST it with the form's CSRF token, as one client. */
async function setUpAs(h: Harness, client: Client, form: Record<string, string> = OWNER) {
  const host = new URL(h.baseUrl).host
  const base = { remoteAddress: client.remoteAddress ?? '127.0.0.1', headers: { host, ...client.headers } }
  const page = await h.server.inject({ method: 'GET', url: '/setup', ...base })
  const csrfCookie = page.cookies.find((c) => c.name === 'herald_login_csrf')?.value ?? ''
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? ''
  const answer = await h.server.inject({
    method: 'POST',
    url: '/setup',
    ...base,
    headers: {
      ...base.headers,
      cookie: [client.headers?.cookie, `herald_login_csrf=${csrfCookie}`].filter(Boolean).join('; '),
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({ csrf, ...form }).toString(),
  })
  return { page, answer }
}

const people = (h: Harness) => h.app.store.db.selectFrom('users').selectAll().execute()

describe('a fresh instance', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ fresh: true })
  })
  afterAll(async () => {
    await h?.close()
  })

  it('leads / and /login to the setup page, which from this machine asks for no code', async () => {
    const browser = createBrowser(h.baseUrl)
    for (const url of ['/', '/login', '/login?next=%2Fcompose'])
      expect((await browser.get(url)).location).toBe(`${h.baseUrl}/setup`)
    const setup = await browser.get('/setup')
    expect(setup.status).toBe(200)
    expect(setup.text).toContain('<h1>Set up Herald</h1>')
    expect(setup.text).not.toContain('name="code"')
    expect(setup.text).toContain('no setup code is needed')
  })

  it('refuses a form without its CSRF token and creates nobody', async () => {
    const browser = createBrowser(h.baseUrl)
    await browser.get('/setup')
    const answer = await browser.post('/setup', { ...OWNER, csrf: 'forged' })
    expect(answer.status).toBe(403)
    expect(await people(h)).toHaveLength(0)
  })

  it.each([
    [{ password: 'short', passwordAgain: 'short' }, 400, 'at least 8 characters'],
    [{ passwordAgain: 'another long password' }, 400, 'The two passwords differ'],
    [{ email: 'not-an-address' }, 400, 'Not an email address'],
    [{ workspace: '   ' }, 400, 'The workspace needs a name'],
    [{ workspace: 'w'.repeat(201) }, 400, 'at most 200 characters'],
  ])('refuses %o with %i, saying why, and creates nobody', async (change, status, words) => {
    const { answer } = await setUpAs(h, {}, { ...OWNER, ...change })
    expect(answer.statusCode).toBe(status)
    expect(answer.body).toContain(words)
    // The page keeps what was typed, except the passwords.
    expect(answer.body).not.toContain(OWNER.password)
    expect(await people(h)).toHaveLength(0)
  })

  it('creates the owner, an administrator with the first workspace and no credits, signed in on /posts', async () => {
    const browser = createBrowser(h.baseUrl)
    const form = await browser.get('/setup')
    const answer = await browser.post('/setup', { ...OWNER, csrf: browser.csrf(form) })
    expect(answer.status).toBe(303)
    expect(answer.location).toBe(`${h.baseUrl}/posts`)
    const posts = await browser.get('/posts')
    expect(posts.status).toBe(200)
    expect(posts.text).toContain(OWNER.email)

    const [person] = await people(h)
    expect(person).toMatchObject({ email: OWNER.email, name: OWNER.name, is_admin: 1 })
    const workspaces = await h.app.store.db.selectFrom('workspaces').selectAll().execute()
    expect(workspaces).toMatchObject([{ name: OWNER.workspace, credit_balance: 0 }])
    const memberships = await h.app.store.db.selectFrom('memberships').selectAll().execute()
    expect(memberships).toMatchObject([{ user_id: person!.id, role: 'owner' }])
    // The owner signs in with what they typed.
    expect((await createBrowser(h.baseUrl).login(OWNER.email, OWNER.password)).status).toBe(200)
  })

  it('is gone once the owner exists: the page leads to sign-in and a second setup creates nobody', async () => {
    const browser = createBrowser(h.baseUrl)
    expect((await browser.get('/setup')).location).toBe(`${h.baseUrl}/login`)
    expect((await browser.get('/login')).status).toBe(200)
    expect((await browser.get('/')).location).toBe(`${h.baseUrl}/login?next=%2Fposts`)
    const again = await browser.post('/setup', {
      ...OWNER,
      email: 'mallory@example.com',
      csrf: browser.csrf(await browser.get('/login')),
    })
    expect(again.status).toBe(409)
    expect(again.text).toContain('already has its owner')
    expect(await people(h)).toHaveLength(1)
  })
})

describe('the setup page from another machine', () => {
  let h: Harness
  let code: string
  beforeAll(async () => {
    h = await startHarness({ fresh: true })
    code = (await announceSetup({
      store: h.app.store,
      clock: h.app.clock,
      logger: h.app.logger,
      publicBaseUrl: h.app.config.publicBaseUrl,
    })) as string
  })
  afterAll(async () => {
    await h?.close()
  })

  const remote = { remoteAddress: '203.0.113.7' }

  it('prints one line with the setup URL and its code at start', () => {
    const lines = h.logs.filter((line) => line.includes('/setup?code='))
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!).msg).toBe(
      `Open ${h.app.config.publicBaseUrl}/setup?code=${code} to create the owner`,
    )
  })

  it('asks for the code and cannot create the owner without it', async () => {
    const { page, answer } = await setUpAs(h, remote)
    expect(page.body).toContain('name="code"')
    expect(answer.statusCode).toBe(403)
    expect(await people(h)).toHaveLength(0)
  })

  it('refuses a wrong code, then throttles that address', async () => {
    const other = { remoteAddress: '198.51.100.23' }
    const statuses: number[] = []
    for (let i = 0; i < 8; i++)
      statuses.push((await setUpAs(h, other, { ...OWNER, code: `wrong-${i}` })).answer.statusCode)
    expect(statuses.slice(0, 5)).toEqual([403, 403, 403, 403, 403])
    expect(statuses).toContain(429)
    const throttled = await setUpAs(h, other, { ...OWNER, code })
    expect(throttled.answer.statusCode).toBe(429)
    expect(throttled.answer.headers['retry-after']).toMatch(/^\d+$/)
    expect(await people(h)).toHaveLength(0)
  })

  it.each<[string, Client, string?]>([
    [
      'a client that says it forwards for loopback',
      { ...remote, headers: { 'x-forwarded-for': '127.0.0.1' } },
    ],
    ['a client behind an untrusted local proxy', { headers: { 'x-forwarded-for': '203.0.113.7' } }],
    ['a client named by a Forwarded header', { headers: { forwarded: 'for="[2001:db8::7]:4711"' } }],
    ['a client named by X-Real-IP', { headers: { 'x-real-ip': '203.0.113.7' } }],
    ['a page that reached this machine under its own name', { headers: { host: 'rebound.example:3000' } }],
    ['a client behind a trusted proxy', { headers: { 'x-forwarded-for': '203.0.113.7' } }, '127.0.0.1'],
    [
      'a direct client that bypasses a counted proxy',
      { ...remote, headers: { 'x-forwarded-for': '127.0.0.1' } },
      '1',
    ],
  ])('counts %s as remote: no code, no owner', async (_what, client, trust) => {
    const server = trust ? await startHarness({ fresh: true, env: { HERALD_TRUST_PROXY: trust } }) : h
    try {
      const { page, answer } = await setUpAs(server, client)
      expect(page.body).toContain('name="code"')
      expect(answer.statusCode).toBe(403)
      expect(await people(server)).toHaveLength(0)
    } finally {
      if (server !== h) await server.close()
    }
  })

  it('counts this machine through a trusted proxy as local', async () => {
    const proxied = await startHarness({ fresh: true, env: { HERALD_TRUST_PROXY: '127.0.0.1' } })
    try {
      const { page } = await setUpAs(proxied, { headers: { 'x-forwarded-for': '127.0.0.1' } })
      expect(page.body).not.toContain('name="code"')
    } finally {
      await proxied.close()
    }
  })

  it('takes the code from the start line, keeps it out of the page, and creates the owner', async () => {
    const host = new URL(h.baseUrl).host
    const opened = await h.server.inject({
      method: 'GET',
      url: `/setup?code=${encodeURIComponent(code)}`,
      remoteAddress: '192.0.2.44',
      headers: { host },
    })
    expect(opened.statusCode).toBe(303)
    expect(opened.headers.location).toBe('/setup')
    const held = opened.cookies.find((c) => c.name === 'herald_setup_code')
    expect(held).toMatchObject({ value: code, httpOnly: true, path: '/setup' })
    const { page, answer } = await setUpAs(h, {
      remoteAddress: '192.0.2.44',
      headers: { cookie: `herald_setup_code=${code}` },
    })
    expect(page.body).not.toContain('name="code"')
    expect(page.body).not.toContain(code)
    expect(answer.statusCode).toBe(303)
    expect(answer.headers.location).toBe('/posts')
    expect(answer.cookies.find((c) => c.name === 'herald_setup_code')?.maxAge).toBe(0)
    expect(await people(h)).toMatchObject([{ email: OWNER.email, is_admin: 1 }])
    // The code is spent with the owner's creation.
    expect(await setupCodeMatches(h.app.store.db, code)).toBe(false)
  })
})

describe.each(backends)('two setups at once on $name', (backend) => {
  it('make one owner: a setup that starts while another has written its person, uncommitted, is refused', async () => {
    const h = await startHarness({ backend, fresh: true })
    try {
      const setUp = (i: number) =>
        h.app.accounts.setUpOwner({
          email: `owner${i}@example.com`,
          password: OWNER.password,
          workspace: `Team ${i}`,
          access: { local: true },
        })
      // The first setup's transaction has inserted its person and not committed yet when the second one
      // looks: the second must wait for it and then see an owner, not an empty instance.
      let second: Promise<unknown> | undefined
      await h.app.store.db.transaction().execute(async (tx) => {
        await tx
          .insertInto('users')
          .values({
            id: 'first-owner',
            email: 'owner1@example.com',
            name: 'First',
            password_hash: 'x',
            created_at: 1,
            is_admin: 1,
          })
          .execute()
        second = setUp(2).catch((error: unknown) => error)
        await new Promise((resolve) => setTimeout(resolve, 1500))
      })
      expect(await second).toMatchObject({ code: 'conflict' })
      expect(await people(h)).toMatchObject([{ id: 'first-owner' }])
      expect(await h.app.store.db.selectFrom('workspaces').selectAll().execute()).toHaveLength(0)
    } finally {
      await h.close()
    }
  })

  it('through the page: concurrent posts make one owner', async () => {
    const h = await startHarness({ backend, fresh: true })
    try {
      const answers = await Promise.all(
        [1, 2, 3, 4].map((i) => setUpAs(h, {}, { ...OWNER, email: `page${i}@example.com` })),
      )
      expect(answers.map((a) => a.answer.statusCode).sort()).toEqual([303, 409, 409, 409])
      expect(await people(h)).toHaveLength(1)
    } finally {
      await h.close()
    }
  })
})

describe('setup codes across processes', () => {
  it('a code printed by one process works against another serving the same database, until its process stops', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-setup-'))
    const file = path.join(dir, 'herald.sqlite')
    const shared = { name: 'sqlite' as const, open: () => openStore({ sqlitePath: file }) }
    const printer = await startHarness({ backend: shared, fresh: true })
    const server = await startHarness({ backend: shared, fresh: true })
    try {
      const deps = (h: Harness) => ({
        store: h.app.store,
        clock: h.app.clock,
        logger: h.app.logger,
        publicBaseUrl: h.app.config.publicBaseUrl,
      })
      const first = (await announceSetup(deps(printer))) as string
      const second = (await announceSetup(deps(printer))) as string
      expect(await setupCodeMatches(server.app.store.db, first)).toBe(true)
      await withdrawSetupCode(printer.app.store.db, second)
      const withdrawn = await setUpAs(server, { remoteAddress: '203.0.113.9' }, { ...OWNER, code: second })
      expect(withdrawn.answer.statusCode).toBe(403)
      const used = await setUpAs(server, { remoteAddress: '203.0.113.9' }, { ...OWNER, code: first })
      expect(used.answer.statusCode).toBe(303)
      // With a person, a process that starts prints nothing.
      expect(await announceSetup(deps(printer))).toBeUndefined()
    } finally {
      await printer.close()
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('herald bootstrap', () => {
  it('still creates a person, a workspace and a key; the first person is the administrator, later ones are not', async () => {
    const h = await startHarness({ fresh: true })
    try {
      const first = await h.app.accounts.bootstrap({
        email: 'first@example.com',
        password: OWNER.password,
        workspace: 'First',
      })
      expect(first.apiKey).toMatch(/^hk_/)
      await h.app.accounts.bootstrap({
        email: 'second@example.com',
        password: OWNER.password,
        workspace: 'Second',
      })
      await h.app.accounts.createUser({ email: 'third@example.com', password: OWNER.password })
      const rows = await h.app.store.db
        .selectFrom('users')
        .select(['email', 'is_admin'])
        .orderBy('email')
        .execute()
      expect(rows).toEqual([
        { email: 'first@example.com', is_admin: 1 },
        { email: 'second@example.com', is_admin: 0 },
        { email: 'third@example.com', is_admin: 0 },
      ])
      // The network apps page and the navigation ask the same flag.
      const admins = await Promise.all(
        (await h.app.store.db.selectFrom('users').select('id').orderBy('email').execute()).map((u) =>
          isInstanceAdministrator(h.app.store.db, u.id),
        ),
      )
      expect(admins).toEqual([true, false, false])
      const [workspace] = await h.app.store.db
        .selectFrom('workspaces')
        .selectAll()
        .where('id', '=', first.workspaceId)
        .execute()
      expect(workspace?.credit_balance).toBe(0)
    } finally {
      await h.close()
    }
  })
})

describe('the start line of each process', () => {
  it('npm start prints the setup URL while nobody exists, herald worker does not, and a stopped process takes its code along', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'herald-setup-start-'))
    const port = await freePort()
    const env = {
      ...inheritedEnv(),
      HERALD_DATA_DIR: dir,
      HERALD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      HERALD_FFMPEG_PATH: 'none',
      LOG_LEVEL: 'info',
      HERALD_LOG_FORMAT: 'json',
    }
    const started: HeraldProcess[] = []
    const setupLines = (p: HeraldProcess) =>
      p
        .tail()
        .split('\n')
        .filter((line) => line.includes('/setup?code='))
    try {
      const api = await spawnHerald('all', { ...env, PORT: String(port) })
      started.push(api)
      const worker = await spawnHerald('worker', { ...env, PORT: '0' })
      started.push(worker)
      await expect.poll(() => setupLines(api).length, { timeout: 10_000 }).toBe(1)
      const message = JSON.parse(setupLines(api)[0]!).msg as string
      const url = /^Open (http:\/\/127\.0\.0\.1:\d+\/setup\?code=[\w-]+) to create the owner$/.exec(
        message,
      )?.[1]
      expect(url).toContain(`http://127.0.0.1:${port}/setup?code=`)
      // The code in the line opens the setup page of the process that printed it.
      const opened = await fetch(url!, { redirect: 'manual' })
      expect(opened.status).toBe(303)
      expect(opened.headers.get('set-cookie')).toContain('herald_setup_code=')
      expect(setupLines(worker)).toEqual([])

      api.child.kill('SIGTERM')
      await api.exited
      const store = await openStore({ sqlitePath: path.join(dir, 'herald.sqlite') })
      try {
        expect(await store.db.selectFrom('setup_codes').selectAll().execute()).toEqual([])
      } finally {
        await store.destroy()
      }
    } finally {
      for (const p of started)
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM')
      await Promise.all(started.map((p) => p.exited))
      rmSync(dir, { recursive: true, force: true })
    }
  }, 90_000)
})
