import type { Network } from '../../src/core/networks.js'
import type { Harness } from '../helpers/harness.js'

/** One post a simulated network holds: the ids it answers to and what a URL of it names. */
export interface Copy {
  ids: string[]
  urlKeys: string[]
}

/**
 * The copies of a simulated post the network holds, counted in the simulator's own state (never from
 * Herald's rows): every item whose text carries the post's unique tag.
 */
export function countCopies(h: Harness, network: Network, tag: string): Copy[] {
  const s = h.sandboxes
  if (!s) throw new Error('the simulation needs sandbox mode')
  const has = (text: unknown) => typeof text === 'string' && text.includes(tag)
  switch (network) {
    case 'twitter':
      return s.twitter
        .tweets()
        .filter((t) => has(JSON.stringify(t)))
        .map((t) => ({ ids: [String(t.id)], urlKeys: [`/status/${t.id}`] }))
    case 'facebook':
      return [
        ...[...s.meta.posts.values()]
          .filter((p) => has(p.message))
          .map((p) => ({
            ids: [p.id],
            urlKeys: [p.id, p.id.split('_').pop() ?? p.id],
          })),
        ...[...s.meta.videos.values()]
          .filter((v) => has(v.description) && !v.postId)
          .map((v) => ({ ids: [v.id], urlKeys: [v.id] })),
      ]
    case 'instagram':
      return [...s.meta.media.values()]
        .filter((m) => has(m.caption))
        .map((m) => ({ ids: [m.id], urlKeys: [m.shortcode] }))
    case 'threads':
      return [...s.threads.threads.values()]
        .filter((t) => has(t.text))
        .map((t) => ({ ids: [t.id], urlKeys: [t.shortcode] }))
    case 'linkedin':
      return [...s.linkedin.posts.values()]
        .filter((p) => has(p.commentary))
        .map((p) => ({ ids: [p.id], urlKeys: [p.id] }))
    case 'bluesky':
      return [...s.bluesky.records.values()]
        .filter((r) => r.collection === 'app.bsky.feed.post' && has(r.value.text))
        .map((r) => ({ ids: [r.uri], urlKeys: [`/post/${r.rkey}`] }))
    case 'youtube':
      return [...s.youtube.videos.values()]
        .filter((v) => has(JSON.stringify(v.resource.snippet)))
        .map((v) => ({ ids: [v.id], urlKeys: [v.id] }))
    case 'googlebusiness':
      return [...s.googlebusiness.posts.values()]
        .filter((p) => has(p.post.summary))
        .map((p) => ({ ids: [p.name], urlKeys: [`lpsid=${p.id}`] }))
    case 'mastodon':
      return mastodonStatuses(h)
        .filter((st) => has(st.text))
        .map((st) => ({ ids: [st.id], urlKeys: [`/${st.id}`] }))
    case 'pinterest':
      return [...s.pinterest.pins.values()]
        .filter((p) => has(p.description) || has(p.title))
        .map((p) => ({ ids: [p.id], urlKeys: [`/pin/${p.id}/`] }))
    case 'tiktok': {
      // A post others cannot see yet (private, a draft) is known by its publish id, at the creator's page.
      const creatorPage = (openId: string) => `/@${s.tiktok.users.get(openId)?.username ?? openId}`
      return [
        ...[...s.tiktok.posts.values()]
          .filter((p) => has(p.title) || has(p.description))
          .map((p) => ({ ids: [p.id, p.publishId], urlKeys: [`/${p.id}`, creatorPage(p.openId)] })),
        ...[...s.tiktok.drafts.values()]
          .filter((d) => has(d.title) || has(d.description))
          .map((d) => ({ ids: [d.id, d.publishId], urlKeys: [creatorPage(d.openId)] })),
      ]
    }
  }
}

/** One thread item or first comment a simulated network holds: its id and the id of what it answers. */
export interface ItemCopy {
  id: string
  parent: string | undefined
}

/**
 * The copies of one thread item or first comment the network holds, counted in the simulator's own state:
 * every reply (X, Bluesky, Threads, Mastodon) or comment (Facebook, Instagram, LinkedIn, YouTube) whose text carries
 * the item's unique tag, with the id of the post or item it answers.
 */
export function countItemCopies(h: Harness, network: Network, tag: string): ItemCopy[] {
  const s = h.sandboxes
  if (!s) throw new Error('the simulation needs sandbox mode')
  const has = (text: unknown) => typeof text === 'string' && text.includes(tag)
  switch (network) {
    case 'twitter':
      return s.twitter
        .tweets()
        .filter((t) => has(t.text))
        .map((t) => ({ id: String(t.id), parent: t.inReplyToId }))
    case 'bluesky':
      return [...s.bluesky.records.values()]
        .filter((r) => r.collection === 'app.bsky.feed.post' && has(r.value.text))
        .map((r) => ({
          id: r.uri,
          parent: (r.value.reply as { parent?: { uri?: string } } | undefined)?.parent?.uri,
        }))
    case 'threads':
      return [...s.threads.threads.values()]
        .filter((t) => has(t.text))
        .map((t) => ({ id: t.id, parent: t.replyToId }))
    case 'facebook':
    case 'instagram':
      return [...s.meta.comments.values()]
        .filter((c) => c.network === network && has(c.message))
        .map((c) => ({ id: c.id, parent: c.objectId }))
    case 'linkedin':
      return [...s.linkedin.comments.values()]
        .filter((c) => has(c.text))
        .map((c) => ({ id: c.urn, parent: c.object }))
    case 'youtube':
      return [...s.youtube.comments.values()]
        .filter((c) => has(c.text))
        .map((c) => ({ id: c.id, parent: c.videoId }))
    // A local post, a TikTok post and a pin take neither replies nor comments through the API.
    case 'mastodon':
      return mastodonStatuses(h)
        .filter((st) => has(st.text))
        .map((st) => ({ id: st.id, parent: st.inReplyToId ?? undefined }))
    case 'googlebusiness':
    case 'tiktok':
    case 'pinterest':
      return []
  }
}

/** Every status of every simulated Mastodon instance. */
const mastodonStatuses = (h: Harness) =>
  [...(h.sandboxes?.mastodon.instances.values() ?? [])].flatMap((instance) => [...instance.statuses.values()])
