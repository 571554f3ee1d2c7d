import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWebhookWorker, createAppWorker } from '../../src/main.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import {
  createEndpoint,
  listAttempts,
  rotateSecret,
  sendTestEvent,
  webhookDepsOf,
} from '../../src/modules/outbox/endpoints.js'
import { webhookSecretAt } from '../../src/platform/crypto/vault.js'
import { backends } from '../helpers/backends.js'
import { type Browser, createBrowser } from '../helpers/browser.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

/**
 * Someone with write access to the database copies the sealed X tokens of a
 * victim's connection (in another workspace) over the tokens of a connection in their own workspace, so
 * that their posts go out as the victim. The vault binds each value to its row: the copy does not open,
 * nothing reaches the network as the victim, and the connection shows as needing reconnection.
 */
describe.each(backends)('a sealed token copied into another row or column, on $name', (backend) => {
  let h: Harness
  let owner: Browser
  let victim: Awaited<ReturnType<typeof sandboxConnect>>
  let attacker: Awaited<ReturnType<typeof sandboxConnect>>
  let receiver: Receiver

  beforeAll(async () => {
    h = await startHarness({
      backend,
      sandbox: true,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0', HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' },
    })
    receiver = await startReceiver()
    const other = await h.app.accounts.createWorkspace({ name: 'Victim', ownerEmail: h.email })
    victim = await sandboxConnect(h.app, {
      workspaceId: other.workspaceId,
      network: 'twitter',
      username: 'victim',
    })
    attacker = await sandboxConnect(h.app, {
      workspaceId: h.workspaceId,
      network: 'twitter',
      username: 'attacker',
    })
    owner = createBrowser(h.baseUrl)
    await owner.login(h.email, h.password)
  }, 60_000)
  afterAll(async () => {
    await receiver.close()
    await h.close()
  })

  const tweetsBy = (profileId: string) =>
    h.sandboxes!.twitter.tweets().filter((t) => t.authorId === profileId)

  it("refuses the victim's tokens in the attacker's row: nothing is posted as the victim and the connection needs reconnecting", async () => {
    const db = h.app.store.db
    const stolen = await db
      .selectFrom('connections')
      .select('credentials')
      .where('id', '=', victim.connectionId)
      .executeTakeFirstOrThrow()
    await db
      .updateTable('connections')
      .set({ credentials: stolen.credentials })
      .where('id', '=', attacker.connectionId)
      .execute()

    const created = await h.call('create_post', {
      content: 'Posted with somebody else’s token',
      targetAccounts: [{ platform: 'twitter', profileId: attacker.profileId }],
      publishImmediately: true,
    })
    expect(created.status).toBe(200)
    const worker = createAppWorker(h.app, { id: 'copied-credentials' })
    await worker.tick()
    await worker.idle()

    // The network's own record: nothing from either account.
    expect(tweetsBy(victim.profileId)).toEqual([])
    expect(tweetsBy(attacker.profileId)).toEqual([])
    expect(h.sandboxes!.twitter.tweets()).toEqual([])
    const target = await db
      .selectFrom('targets')
      .selectAll()
      .where('post_id', '=', created.body.postIds[0])
      .executeTakeFirstOrThrow()
    expect(target.status).toBe('failed')
    expect(target.error).toMatch(/do not belong to this connection/)

    const row = await db
      .selectFrom('connections')
      .selectAll()
      .where('id', '=', attacker.connectionId)
      .executeTakeFirstOrThrow()
    expect(row.status).toBe('needs_reconnect')
    expect(row.last_error).toMatch(/sealed for another row or column, or altered/)

    const health = await h.call('get_account_health', {})
    expect(health.status).toBe(200)
    expect(health.body.connections).toEqual([
      expect.objectContaining({ username: 'attacker', needsReconnect: true }),
    ])
    expect(health.body.connections[0].reason).toMatch(/do not belong to this connection/)

    const channels = await owner.get('/channels')
    expect(channels.status).toBe(200)
    expect(channels.text).toContain('Reconnect needed</span>')
    expect(channels.text).toContain('do not belong to this connection')

    // The victim's own connection, in its own row, is untouched and still publishes.
    const victimRow = await db
      .selectFrom('connections')
      .select('status')
      .where('id', '=', victim.connectionId)
      .executeTakeFirstOrThrow()
    expect(victimRow.status).toBe('active')
    // No page or answer showed a token.
    const tokens = JSON.stringify([health.body, created.body, channels.text])
    expect(tokens).not.toContain(stolen.credentials)
  })

  it('refuses a webhook secret moved into another column: nothing is sent signed with it, and rotating still works', async () => {
    const deps = webhookDepsOf(h.app)
    const actor = { workspaceId: h.workspaceId, role: 'owner' as const }
    const created = await createEndpoint(deps, actor, { url: receiver.url })
    const rotated = await rotateSecret(deps, actor, created.id)
    // The replaced secret (which the attacker may still hold) is moved into the current secret's column.
    const row = await h.app.store.db
      .selectFrom('webhook_endpoints')
      .select('previous_secret')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow()
    await h.app.store.db
      .updateTable('webhook_endpoints')
      .set({ secret: row.previous_secret!, previous_secret: null, previous_secret_until: null })
      .where('id', '=', created.id)
      .execute()

    await sendTestEvent(deps, actor, created.id)
    const webhooks = createAppWebhookWorker(h.app, { id: 'copied-secret' })
    try {
      await webhooks.drain()
    } finally {
      await webhooks.stop()
    }
    expect(receiver.requests).toEqual([])
    const attempts = await listAttempts(deps, actor, created.id)
    expect(attempts[0]?.responseExcerpt).toMatch(/cannot be opened .*nothing was sent/)

    // Rotating again is not a 500: the unreadable secret is dropped, not carried over as the previous one.
    const again = await rotateSecret(deps, actor, created.id)
    expect(again.secret).not.toBe(rotated.secret)
    const after = await h.app.store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow()
    expect(after.previous_secret).toBeNull()
    expect(after.previous_secret_until).toBeNull()
    expect(again.previousSecretValidUntil).toBeUndefined()
    expect(h.app.vault.open(webhookSecretAt(created.id, 'secret'), after.secret)).toBe(again.secret)
  })
})
