import type { FastifyInstance } from 'fastify'
import { tiktokPrivacyLabels } from '../../core/tiktok-rules.js'
import type { WebEntry, WebPage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { TikTokPost } from './model.js'
import type { TikTokSandboxState } from './state.js'

/**
 * www.tiktok.com's pages under the web base, where share URLs lead in sandbox mode: a video
 * (`/@:username/video/:id`) or photo post (`/@:username/photo/:id`) in its vertical frame with the caption
 * under it, and a creator's page (`/@:username`), where Herald sends people for a post TikTok gave no
 * public id (a private one). The creator's page shows every post of theirs, private ones marked so: it is
 * the page the creator sees.
 */
export function registerTikTokWebPages(server: FastifyInstance, state: TikTokSandboxState, path: string) {
  registerWebPages(server, {
    path,
    network: 'tiktok',
    media: (key) => state.kept.get(key),
    routes(app, pages) {
      const postAt = (at: string, id: string, kind: TikTokPost['kind']) => {
        const user = userAt(state, at)
        const post = state.posts.get(id)
        return post && user && post.openId === user.openId && post.kind === kind ? post : undefined
      }
      app.get<{ Params: { at: string; id: string } }>('/:at/video/:id', async (request, reply) => {
        const post = postAt(request.params.at, request.params.id, 'video')
        return pages.send(request, reply, post && postPage(state, post))
      })
      app.get<{ Params: { at: string; id: string } }>('/:at/photo/:id', async (request, reply) => {
        const post = postAt(request.params.at, request.params.id, 'photo')
        return pages.send(request, reply, post && postPage(state, post))
      })
      app.get<{ Params: { at: string } }>('/:at', async (request, reply) => {
        const user = userAt(state, request.params.at)
        const posts = user
          ? [...state.posts.values()]
              .filter((p) => p.openId === user.openId)
              .sort((a, b) => b.createdAt - a.createdAt)
          : []
        return pages.sendProfile(
          request,
          reply,
          user && {
            network: 'tiktok',
            title: `${user.displayName} (@${user.username}) | TikTok`,
            author: { name: user.displayName, handle: `@${user.username}` },
            posts: posts.map((post) => ({
              entry: entryOf(state, post),
              href: `@${user.username}/${post.kind}/${post.id}`,
            })),
          },
        )
      })
    },
  })
}

// The `@` is part of the segment (find-my-way has no static prefix inside a parameter's segment).
const userAt = (state: TikTokSandboxState, at: string) =>
  at.startsWith('@') ? [...state.users.values()].find((user) => user.username === at.slice(1)) : undefined

function postPage(state: TikTokSandboxState, post: TikTokPost): WebPage {
  const entry = entryOf(state, post)
  return { network: 'tiktok', title: `${entry.author.name} on TikTok`, post: entry }
}

function entryOf(state: TikTokSandboxState, post: TikTokPost): WebEntry {
  const user = state.users.get(post.openId)
  const shown = post.publicAt !== undefined && post.publicAt <= state.now()
  const note =
    post.privacyLevel === 'SELF_ONLY'
      ? 'Only you can see this post'
      : shown || post.privacyLevel !== 'PUBLIC_TO_EVERYONE'
        ? `${tiktokPrivacyLabels[post.privacyLevel]} can see this post`
        : 'Under review: others can see it once TikTok has checked it'
  const keys = post.mediaKeys.length > 0 ? post.mediaKeys : [undefined]
  return {
    author: { name: user?.displayName ?? 'TikTok', ...(user ? { handle: `@${user.username}` } : {}) },
    at: post.createdAt,
    ...(post.kind === 'photo' && post.title ? { title: post.title } : {}),
    text: post.kind === 'photo' ? post.description : post.title,
    media: keys.map((key) => ({ kind: post.kind === 'photo' ? 'image' : 'video', ...(key ? { key } : {}) })),
    note,
  }
}
