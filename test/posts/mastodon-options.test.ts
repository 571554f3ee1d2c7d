import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * The `mastodon` object (an addition to the spec) on create_post and update_post: kept on the post as
 * given, resolved per profile (a profile's own entry over the shared one), merged field by field by an
 * edit, ignored for other networks, and refused when it is not one.
 */
describe('the mastodon object of a post', () => {
  let h: Harness
  let mastodon = ''
  let bluesky = ''
  beforeAll(async () => {
    h = await startHarness({ sandbox: true })
    mastodon = (
      await sandboxConnect(h.app, {
        workspaceId: h.workspaceId,
        network: 'mastodon',
        username: 'opt@opts.example',
      })
    ).profileId
    bluesky = (
      await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'bluesky', username: 'opts' })
    ).profileId
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })
  const later = () => ({
    scheduleDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
    scheduleTime: '09:00',
  })
  const targetRow = (postId: string) =>
    h.app.store.db.selectFrom('targets').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow()

  it('keeps it on the Mastodon post, a profile entry over the shared object, and leaves other networks without it', async () => {
    const { status, body } = await h.call('create_post', {
      content: 'Options',
      targetAccounts: [
        { platform: 'mastodon', profileId: mastodon, mastodon: { visibility: 'private' } },
        { platform: 'bluesky', profileId: bluesky },
      ],
      mastodon: { visibility: 'unlisted', contentWarning: 'food', language: 'en' },
      ...later(),
    })
    expect(status, JSON.stringify(body)).toBe(200)
    const [onMastodon, onBluesky] = body.posts
    expect(onMastodon.mastodon).toEqual({ visibility: 'private', contentWarning: 'food', language: 'en' })
    expect(onBluesky.mastodon).toBeUndefined()
    expect(JSON.parse((await targetRow(onMastodon.id)).mastodon!)).toEqual({
      visibility: 'private',
      contentWarning: 'food',
      language: 'en',
    })
    expect((await targetRow(onBluesky.id)).mastodon).toBeNull()
  })

  it('merges an edit field by field into what the target will send', async () => {
    const { body } = await h.call('create_post', {
      content: 'Edited options',
      targetAccounts: [{ platform: 'mastodon', profileId: mastodon }],
      mastodon: { visibility: 'unlisted', contentWarning: 'old warning' },
      ...later(),
    })
    const id = body.posts[0].id as string
    const edited = await h.call('update_post', { id, mastodon: { contentWarning: 'new warning' } })
    expect(edited.status, JSON.stringify(edited.body)).toBe(200)
    const post = (await h.call('get_post', { id })).body
    expect(post.mastodon).toEqual({ visibility: 'unlisted', contentWarning: 'new warning' })
    expect(JSON.parse((await targetRow(id)).mastodon!)).toEqual({
      visibility: 'unlisted',
      contentWarning: 'new warning',
    })
  })

  it('refuses a visibility or language Mastodon does not take, creating nothing', async () => {
    for (const mastodonOptions of [{ visibility: 'everyone' }, { language: 'English' }, { colour: 'red' }]) {
      const { status } = await h.call('create_post', {
        content: 'Refused',
        targetAccounts: [{ platform: 'mastodon', profileId: mastodon }],
        mastodon: mastodonOptions,
        ...later(),
      })
      expect(status).toBe(400)
    }
    const { body } = await h.call('list_posts', {})
    expect(JSON.stringify(body)).not.toContain('Refused')
  })
})
