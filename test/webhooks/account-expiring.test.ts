import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Credentials } from '../../src/adapters/adapter.js'
import { createAppWebhookWorker } from '../../src/main.js'
import { sweepExpiringConnections } from '../../src/modules/delivery/expiring.js'
import type { WebhookWorker } from '../../src/modules/outbox/delivery-worker.js'
import { createEndpoint, webhookDepsOf } from '../../src/modules/outbox/endpoints.js'
import { FakeClock } from '../../src/platform/clock.js'
import { connectionCredentials } from '../../src/platform/crypto/vault.js'
import { upsertConnection } from '../../src/platform/db/statements/connections.js'
import { backends } from '../helpers/backends.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

const DAY = 86_400_000
const T0 = Date.parse('2026-01-05T09:00:00.000Z')

describe.each(backends)('account.expiring on $name', (backend) => {
  let h: Harness
  let receiver: Receiver
  let webhooks: WebhookWorker
  const clock = new FakeClock(T0)

  const connect = (profileId: string, credentials: Credentials, platform = 'linkedin') =>
    upsertConnection(
      h.app.store.db,
      {
        workspaceId: h.workspaceId,
        platform,
        profileId,
        username: profileId,
        name: `Profile ${profileId}`,
        isOrganization: false,
        sealCredentials: (id) => h.app.vault.sealJson(connectionCredentials(id), credentials),
        tokenExpiresAt: credentials.expiresAt ?? null,
      },
      clock.now(),
    )
  /** What LinkedIn grants: a 60-day access token and a 365-day refresh token whose end it states. */
  const linkedInGrant = (tag: string): Credentials => ({
    accessToken: `li-access-${tag}`,
    refreshToken: `li-refresh-${tag}`,
    expiresAt: clock.now() + 60 * DAY,
    extra: { refreshTokenExpiresAt: String(clock.now() + 365 * DAY) },
  })
  /** Four sweeps at once, as several workers would run them (on Postgres each on its own connection). */
  const race = async () => {
    const sweep = () => sweepExpiringConnections({ store: h.app.store, vault: h.app.vault, now: clock.now() })
    await Promise.all([sweep(), sweep(), sweep(), sweep()])
    await webhooks.drain()
  }
  const expiring = (profileId: string) =>
    receiver.accepted.filter(
      (r) => r.event.type === 'account.expiring' && r.event.data.account.profileId === profileId,
    )

  beforeAll(async () => {
    h = await startHarness({ backend, clock, env: { HERALD_ALLOW_PRIVATE_WEBHOOKS: '1' } })
    receiver = await startReceiver()
    webhooks = createAppWebhookWorker(h.app, { id: 'expiring' })
    await createEndpoint(
      webhookDepsOf(h.app),
      { workspaceId: h.workspaceId, role: 'owner' },
      { url: receiver.url, eventTypes: ['account.expiring'] },
    )
  })
  afterAll(async () => {
    await webhooks.stop()
    await receiver.close()
    await h.close()
  })

  it('warns 7 days and 1 day before a refresh token ends, once each, however many sweeps race', async () => {
    clock.set(T0)
    await connect('li-1', linkedInGrant('one'))
    const end = T0 + 365 * DAY

    clock.set(end - 8 * DAY)
    await race()
    expect(expiring('li-1')).toHaveLength(0)

    clock.set(end - 7 * DAY + 60_000)
    await race()
    expect(expiring('li-1')).toHaveLength(1)
    expect(expiring('li-1')[0]?.event.data).toMatchObject({
      account: { platform: 'linkedin', profileId: 'li-1', username: 'li-1' },
      expiresAt: new Date(end).toISOString(),
      daysLeft: 6,
      warning: '7d',
    })

    // Sweeps in between send nothing new.
    for (const at of [end - 5 * DAY, end - 2 * DAY]) {
      clock.set(at)
      await race()
    }
    expect(expiring('li-1')).toHaveLength(1)

    clock.set(end - DAY + 60_000)
    await race()
    expect(expiring('li-1')).toHaveLength(2)
    expect(expiring('li-1')[1]?.event.data).toMatchObject({ daysLeft: 0, warning: '1d' })

    clock.set(end - 3_600_000)
    await race()
    clock.set(end + DAY)
    await race()
    expect(expiring('li-1')).toHaveLength(2)
    for (const r of expiring('li-1')) expect(r.body).not.toMatch(/li-access|li-refresh|Token|credentials/)
  })

  it('is not sent again after a reconnect moves the end, until the new end comes near', async () => {
    clock.set(T0)
    await connect('li-2', linkedInGrant('old'))
    clock.set(T0 + 365 * DAY - 3 * DAY)
    await race()
    expect(expiring('li-2').map((r) => r.event.data.warning)).toEqual(['7d'])

    // The owner reconnects: a fresh 365-day grant.
    const reconnectedAt = clock.now()
    await connect('li-2', linkedInGrant('new'))
    const newEnd = reconnectedAt + 365 * DAY
    for (const at of [reconnectedAt + 60_000, reconnectedAt + 2 * DAY, newEnd - 8 * DAY]) {
      clock.set(at)
      await race()
    }
    expect(expiring('li-2')).toHaveLength(1)

    clock.set(newEnd - 7 * DAY + 1_000)
    await race()
    expect(expiring('li-2')).toHaveLength(2)
    expect(expiring('li-2')[1]?.event.data).toMatchObject({
      expiresAt: new Date(newEnd).toISOString(),
      warning: '7d',
    })
  })

  it('warns about an access token without a refresh token, never about one Herald refreshes', async () => {
    clock.set(T0)
    // A Meta long-lived user token: 60 days, no refresh token.
    await connect('fb-1', { accessToken: 'fb-access', expiresAt: T0 + 60 * DAY }, 'facebook')
    // Instagram Login: the token refreshes itself (opaque refresh token, no stated end).
    await connect(
      'ig-1',
      { accessToken: 'ig-tok', refreshToken: 'ig-tok', expiresAt: T0 + 50 * DAY },
      'instagram',
    )
    clock.set(T0 + 59 * DAY)
    await race()
    expect(expiring('fb-1').map((r) => r.event.data.warning)).toEqual(['1d'])
    expect(expiring('ig-1')).toHaveLength(0)
  })

  it('loses neither the warning nor its mark when the transaction fails (outbox)', async () => {
    clock.set(T0)
    await connect('li-3', linkedInGrant('crash'))
    clock.set(T0 + 365 * DAY - 6 * DAY)
    // The event cannot be written: the mark written before it in the same transaction rolls back too.
    await sql`ALTER TABLE events RENAME TO events_away`.execute(h.app.store.db)
    try {
      await expect(
        sweepExpiringConnections({ store: h.app.store, vault: h.app.vault, now: clock.now() }),
      ).rejects.toThrow()
    } finally {
      await sql`ALTER TABLE events_away RENAME TO events`.execute(h.app.store.db)
    }
    await race()
    expect(expiring('li-3').map((r) => r.event.data.warning)).toEqual(['7d'])
  })
})
