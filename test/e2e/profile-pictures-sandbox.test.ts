import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import type { Network } from '../../src/core/networks.js'
import { avatarPaths } from '../../src/modules/connections/avatars.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { useChainRig } from '../helpers/chain-rig.js'

/**
 * Each simulator names a profile picture as its network does (X's profile_image_url, Bluesky's avatar blob,
 * LinkedIn's picture, a Page's picture, Instagram's and Threads' profile picture URLs, a channel's
 * thumbnail), served by the simulator itself; at connect Herald fetches it once and keeps a small JPEG it
 * serves from its own origin.
 */

const CASES: Array<[Network, string]> = [
  ['twitter', 'pics_x'],
  ['bluesky', 'pics.sky'],
  ['linkedin', 'Pics Member'],
  ['facebook', 'Pics Cafe'],
  ['instagram', 'pics.cafe'],
  ['threads', 'pics.threads'],
  ['youtube', 'pics.creator@example.com'],
]

describe('profile pictures from the simulated networks', () => {
  const rig = useChainRig()

  it('a LinkedIn page, whose logo Herald does not read, keeps its initials', async () => {
    const { profileId } = await sandboxConnect(rig.h.app, {
      workspaceId: rig.h.workspaceId,
      network: 'linkedin',
      username: 'Pics Page',
      organization: true,
    })
    expect((await avatarPaths(rig.h.app.store.db, rig.h.workspaceId)).has(`linkedin:${profileId}`)).toBe(
      false,
    )
  })

  it.each(CASES)(
    '%s (%s): the picture is kept at connect and served by Herald',
    async (network, username) => {
      const { profileId } = await sandboxConnect(rig.h.app, {
        workspaceId: rig.h.workspaceId,
        network,
        username,
      })
      const row = await rig.h.app.store.db
        .selectFrom('connections')
        .select(['avatar_url', 'avatar_media_id'])
        .where('workspace_id', '=', rig.h.workspaceId)
        .where('platform', '=', network)
        .where('profile_id', '=', profileId)
        .executeTakeFirstOrThrow()
      // The network's own address is under the simulator, as the real network's is under its CDN.
      expect(row.avatar_url).toContain('/sandbox/')
      expect(row.avatar_media_id).toBeTruthy()
      const path = (await avatarPaths(rig.h.app.store.db, rig.h.workspaceId)).get(`${network}:${profileId}`)
      expect(path).toBe(`/media/${row.avatar_media_id}/avatar.jpg`)
      const served = await fetch(`${rig.h.baseUrl}${path}`)
      expect(served.status).toBe(200)
      expect(served.headers.get('content-type')).toBe('image/jpeg')
      const picture = await sharp(Buffer.from(await served.arrayBuffer())).metadata()
      expect([picture.format, picture.width, picture.height]).toEqual(['jpeg', 160, 160])
    },
  )
})
