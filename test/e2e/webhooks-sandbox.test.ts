import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppWorker } from '../../src/main.js'
import type { Worker } from '../../src/modules/delivery/worker.js'
import type { Harness } from '../helpers/harness.js'
import { lastJsonLine, type SandboxCli, startSandboxCli } from '../helpers/herald-command.js'
import { duplicates, type Receiver, startReceiver } from '../helpers/webhook-receiver.js'

const until = async (check: () => boolean, ms = 30_000) => {
  for (let waited = 0; waited < ms && !check(); waited += 50) await new Promise((r) => setTimeout(r, 50))
}

/**
 * End to end in sandbox mode: `herald webhooks add`, then a post to X, LinkedIn and Bluesky after the X
 * grant was revoked in the simulator. The receiver is the oracle.
 */
describe('webhooks end to end in sandbox mode', { timeout: 120_000 }, () => {
  let cli: SandboxCli
  let h: Harness
  let worker: Worker
  let receiver: Receiver
  let secret: string
  let endpointId: string
  const profiles: Record<string, string> = {}

  beforeAll(async () => {
    receiver = await startReceiver()
    cli = await startSandboxCli('herald-webhooks-', {
      credits: 1_000,
      env: { HERALD_IMMEDIATE_WAIT_MS: '0' },
    })
    h = cli.harness
    for (const [network, username] of [
      ['twitter', 'acme'],
      ['linkedin', 'Acme Member'],
      ['bluesky', 'acme'],
    ] as const)
      profiles[network] = (await cli.connect(network, username)).profileId
    worker = createAppWorker(h.app, { id: 'e2e-webhooks' })
    worker.start()
  }, 90_000)
  afterAll(async () => {
    await worker?.stop()
    await cli?.close()
    await receiver?.close()
  })

  it('adds an endpoint with `herald webhooks add`, printing its secret once', async () => {
    const { stdout } = await cli.herald(
      'webhooks',
      'add',
      '--workspace',
      h.workspaceId,
      '--url',
      receiver.url,
      '--json',
    )
    const created = lastJsonLine(stdout)
    expect(created.secret).toMatch(/^whsec_/)
    secret = created.secret
    endpointId = created.id
    const listed = await cli.herald('webhooks', 'list', '--workspace', h.workspaceId)
    expect(listed.stdout).toContain(receiver.url)
    expect(listed.stdout).not.toContain(secret)
  })

  it('reports target.published twice, target.failed, then post.partially_published, and account.needs_reconnect for a revoked X grant', async () => {
    const revoke = await fetch(`${h.baseUrl}/sandbox/twitter/_sandbox/accounts/acme/revoke`, {
      method: 'POST',
    })
    expect(revoke.status).toBe(200)
    const created = await h.call('create_post', {
      content: 'Three networks, X revoked',
      targetAccounts: [{ platform: 'twitter', profileId: profiles.twitter }],
      scheduleDate: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
      scheduleTime: '12:00',
      timezone: 'UTC',
    })
    const postId = created.body.postIds[0] as string
    const updated = await h.call('update_post', {
      id: postId,
      targetAccounts: Object.entries(profiles).map(([platform, profileId]) => ({ platform, profileId })),
    })
    expect(updated.status, JSON.stringify(updated.body)).toBe(200)
    expect((await h.call('publish_post_now', { id: postId })).status).toBe(200)
    await until(() => receiver.accepted.some((r) => r.event.type.startsWith('post.')))
    await until(() => receiver.accepted.some((r) => r.event.type === 'account.needs_reconnect'), 5_000)

    const forPost = receiver.accepted.filter((r) => (r.event.data.postId ?? r.event.data.post?.id) === postId)
    expect(forPost.map((r) => r.event.type)).toHaveLength(4)
    expect(forPost.at(-1)?.event.type).toBe('post.partially_published')
    expect(
      forPost
        .slice(0, 3)
        .map((r) => r.event.type)
        .sort(),
    ).toEqual(['target.failed', 'target.published', 'target.published'])
    expect(forPost.find((r) => r.event.type === 'target.failed')?.event.data.target.platform).toBe('twitter')
    const reconnect = receiver.accepted.filter((r) => r.event.type === 'account.needs_reconnect')
    expect(reconnect).toHaveLength(1)
    expect(reconnect[0]?.event.data.account).toMatchObject({
      platform: 'twitter',
      profileId: profiles.twitter,
    })
    for (const request of receiver.accepted)
      expect(receiver.verify(request, secret)).toEqual({ standard: true, svix: true })
    expect(duplicates(receiver.accepted)).toEqual([])
    // What the networks hold agrees: the two that published have the post, X has none.
    const got = await h.call('get_post', { id: postId })
    expect(got.body.targets.filter((t: { status: string }) => t.status === 'published')).toHaveLength(2)
  })

  it('sends a test event and shows the delivery log with `herald webhooks test` and `log`', async () => {
    const test = lastJsonLine(
      (await cli.herald('webhooks', 'test', '--workspace', h.workspaceId, '--id', endpointId, '--json'))
        .stdout,
    )
    await until(() => receiver.accepted.some((r) => r.id === test.eventId))
    await new Promise((r) => setTimeout(r, 200))
    const log = await cli.herald('webhooks', 'log', '--workspace', h.workspaceId, '--id', endpointId)
    expect(log.stdout).toMatch(/webhook\.test .* 204 .* delivered/)
    expect(log.stdout).toMatch(/post\.partially_published/)
  })

  it('narrows an endpoint to some events and back to all with `--event` and `--all-events`, and limits the log', async () => {
    const args = ['webhooks', 'update', '--workspace', h.workspaceId, '--id', endpointId, '--json']
    const narrowed = lastJsonLine((await cli.herald(...args, '--event', 'post.failed')).stdout)
    expect(narrowed.eventTypes).toEqual(['post.failed'])
    const all = lastJsonLine((await cli.herald(...args, '--all-events')).stdout)
    expect(all.eventTypes).toEqual([])
    const log = ['webhooks', 'log', '--workspace', h.workspaceId, '--id', endpointId]
    expect(lastJsonLine((await cli.herald(...log, '--limit', '1', '--json')).stdout)).toHaveLength(1)
    await expect(cli.herald(...log, '--limit', '0')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('1 to 500'),
    })
  })
})
