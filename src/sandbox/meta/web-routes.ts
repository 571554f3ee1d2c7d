import type { FastifyInstance } from 'fastify'
import { keptKey } from '../meta-common/state.js'
import type { WebEntry, WebMedia, WebPage, WebProfilePage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { FbPost, IgMedia, MetaSandboxState } from './state.js'

/**
 * www.facebook.com's and www.instagram.com's pages under `${prefix}/web/facebook` and `/web/instagram`,
 * where the simulator's permalinks lead in sandbox mode: a Page post (`/:page/posts/:story`, a video's
 * `/:page/videos/:id/`, a photo's `/photo/?fbid=`, a post id), a Page (`/:page`), an Instagram post or
 * Reel (`/p/:shortcode/`, `/reel/:shortcode/`) and account (`/:username/`). Photos and videos show from the
 * files the Meta fetcher downloaded; comments sit under the post.
 */
export function registerMetaWebPages(server: FastifyInstance, state: MetaSandboxState) {
  const media = (key: string) => state.kept.get(key)
  registerWebPages(server, {
    path: `${state.prefix}/web/facebook`,
    network: 'facebook',
    media,
    routes(app, pages) {
      app.get<{ Params: { page: string; story: string } }>('/:page/posts/:story', async (request, reply) => {
        const page = pageNamed(state, request.params.page)
        const post = page && state.posts.get(`${page.id}_${request.params.story}`)
        return pages.send(request, reply, post && facebookPage(state, post))
      })
      for (const url of ['/:page/videos/:video', '/:page/videos/:video/'])
        app.get<{ Params: { video: string } }>(url, async (request, reply) => {
          const postId = state.videos.get(request.params.video)?.postId
          const post = postId ? state.posts.get(postId) : undefined
          return pages.send(request, reply, post && facebookPage(state, post))
        })
      for (const url of ['/photo', '/photo/'])
        app.get<{ Querystring: { fbid?: string } }>(url, async (request, reply) => {
          const postId = state.photos.get(String(request.query.fbid ?? ''))?.postId
          const post = postId ? state.posts.get(postId) : undefined
          return pages.send(request, reply, post && facebookPage(state, post))
        })
      app.get<{ Params: { ref: string } }>('/:ref', async (request, reply) => {
        const post = state.posts.get(request.params.ref)
        if (post) return pages.send(request, reply, facebookPage(state, post))
        return pages.sendProfile(request, reply, facebookProfile(state, request.params.ref))
      })
    },
  })
  registerWebPages(server, {
    path: `${state.prefix}/web/instagram`,
    network: 'instagram',
    media,
    routes(app, pages) {
      for (const url of ['/p/:code', '/p/:code/', '/reel/:code', '/reel/:code/'])
        app.get<{ Params: { code: string } }>(url, async (request, reply) => {
          const found = [...state.media.values()].find((m) => m.shortcode === request.params.code)
          return pages.send(request, reply, found && instagramPage(state, found))
        })
      for (const url of ['/:username', '/:username/'])
        app.get<{ Params: { username: string } }>(url, async (request, reply) =>
          pages.sendProfile(request, reply, instagramProfile(state, request.params.username)),
        )
    },
  })
}

/** A downloaded file's place in the kept media, when the fetcher kept it. */
const keptFile = (
  state: MetaSandboxState,
  kind: WebMedia['kind'],
  url: string | undefined,
  alt?: string,
): WebMedia => {
  const key = url ? keptKey(url) : undefined
  const described = alt !== undefined ? { alt } : {}
  return key && state.kept.has(key) ? { kind, key, ...described } : { kind, ...described }
}

const pageNamed = (state: MetaSandboxState, ref: string) =>
  state.pages.get(ref) ?? [...state.pages.values()].find((page) => page.username === ref)

function facebookEntry(state: MetaSandboxState, post: FbPost): WebEntry {
  const video =
    post.kind === 'video' ? [...state.videos.values()].find((v) => v.postId === post.id) : undefined
  const media = video
    ? [keptFile(state, 'video', video.fileUrl)]
    : post.attachedMedia.map((id) =>
        keptFile(state, 'image', state.photos.get(id)?.url, state.photos.get(id)?.altText),
      )
  return {
    author: { name: state.pages.get(post.pageId)?.name ?? 'Facebook Page', picture: post.pageId },
    at: post.createdAt,
    text: post.message,
    media,
    ...(post.link ? { link: { url: post.link } } : {}),
  }
}

function facebookPage(state: MetaSandboxState, post: FbPost): WebPage {
  const entry = facebookEntry(state, post)
  // A comment may be on the post or on the photo or video it carries.
  const objects = new Set([post.id, ...post.attachedMedia])
  for (const video of state.videos.values()) if (video.postId === post.id) objects.add(video.id)
  const comments = [...state.comments.values()].filter(
    (comment) => comment.network === 'facebook' && objects.has(comment.objectId),
  )
  return {
    network: 'facebook',
    title: `${entry.author.name} | Facebook`,
    post: entry,
    comments: comments.map((comment) => ({
      author: { name: state.pages.get(comment.fromId)?.name ?? 'Facebook user' },
      at: comment.createdAt,
      text: comment.message,
    })),
  }
}

function facebookProfile(state: MetaSandboxState, ref: string): WebProfilePage | undefined {
  const page = pageNamed(state, ref)
  if (!page) return undefined
  return {
    network: 'facebook',
    title: `${page.name} | Facebook`,
    author: { name: page.name, picture: page.id },
    posts: state.pagePosts(page.id).map((post) => {
      const [pageId, story] = post.id.split('_')
      return { entry: facebookEntry(state, post), href: `${pageId}/posts/${story}` }
    }),
  }
}

function instagramEntry(state: MetaSandboxState, media: IgMedia): WebEntry {
  const ig = state.igUsers.get(media.igUserId)
  const containers = [...state.containers.values()]
  const items =
    media.children.length > 0
      ? media.children.map((id) => state.containers.get(id))
      : [containers.find((container) => container.mediaId === media.id)]
  return {
    author: { name: ig?.username ?? 'instagram', ...(ig ? { picture: ig.id } : {}) },
    at: media.createdAt,
    text: media.caption,
    media: items.map((container) =>
      keptFile(
        state,
        container?.mediaType === 'IMAGE' ? 'image' : 'video',
        container?.url,
        container?.altText,
      ),
    ),
  }
}

function instagramPage(state: MetaSandboxState, media: IgMedia): WebPage {
  const entry = instagramEntry(state, media)
  const comments = [...state.comments.values()].filter(
    (comment) => comment.network === 'instagram' && comment.objectId === media.id,
  )
  return {
    network: 'instagram',
    title: `${entry.author.name} on Instagram`,
    post: entry,
    comments: comments.map((comment) => ({
      author: { name: state.igUsers.get(comment.fromId)?.username ?? 'instagram' },
      at: comment.createdAt,
      text: comment.message,
    })),
  }
}

function instagramProfile(state: MetaSandboxState, username: string): WebProfilePage | undefined {
  const ig = [...state.igUsers.values()].find((user) => user.username === username)
  if (!ig) return undefined
  return {
    network: 'instagram',
    title: `${ig.name} (@${ig.username}) · Instagram`,
    author: { name: ig.name, handle: `@${ig.username}`, picture: ig.id },
    posts: state.igMediaOf(ig.id).map((media) => ({
      entry: instagramEntry(state, media),
      href: `${media.productType === 'REELS' ? 'reel' : 'p'}/${media.shortcode}/`,
    })),
  }
}
