import type { FastifyInstance } from 'fastify'
import { keptKey } from '../meta-common/state.js'
import type { WebEntry, WebMedia, WebPage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { ThreadsPost, ThreadsSandboxState } from './state.js'

/**
 * www.threads.net's pages under the web base, where the simulator's permalinks lead in sandbox mode: a
 * thread (`/@:username/post/:shortcode`, and `/post/:id` as the adapter writes it when it has no
 * permalink), with its media from the files the Meta fetcher downloaded, its link preview and the
 * author's replies under it; and a profile (`/@:username`).
 */
export function registerThreadsWebPages(server: FastifyInstance, state: ThreadsSandboxState, path: string) {
  registerWebPages(server, {
    path,
    network: 'threads',
    media: (key) => state.kept.get(key),
    routes(app, pages) {
      // The `@` is part of the segment (find-my-way has no static prefix inside a parameter's segment).
      app.get<{ Params: { at: string; code: string } }>('/:at/post/:code', async (request, reply) => {
        const user = userAt(state, request.params.at)
        const thread = [...state.threads.values()].find(
          (t) => t.shortcode === request.params.code && t.userId === user?.id,
        )
        return pages.send(request, reply, thread && threadPage(state, thread))
      })
      app.get<{ Params: { ref: string } }>('/post/:ref', async (request, reply) => {
        const ref = request.params.ref
        const thread = state.threads.get(ref) ?? [...state.threads.values()].find((t) => t.shortcode === ref)
        return pages.send(request, reply, thread && threadPage(state, thread))
      })
      app.get<{ Params: { at: string } }>('/:at', async (request, reply) => {
        const user = userAt(state, request.params.at)
        return pages.sendProfile(
          request,
          reply,
          user && {
            network: 'threads',
            title: `${user.name} (@${user.username}) on Threads`,
            author: { name: user.name, handle: `@${user.username}`, picture: user.id },
            posts: state.threadsOf(user.id).map((thread) => ({
              entry: entryOf(state, thread),
              href: `@${user.username}/post/${thread.shortcode}`,
            })),
          },
        )
      })
    },
  })
}

const userAt = (state: ThreadsSandboxState, at: string) =>
  at.startsWith('@') ? [...state.users.values()].find((user) => user.username === at.slice(1)) : undefined

function threadPage(state: ThreadsSandboxState, thread: ThreadsPost): WebPage {
  const parent = thread.replyToId ? state.threads.get(thread.replyToId) : undefined
  const parentAuthor = parent && state.users.get(parent.userId)
  const entry = entryOf(state, thread)
  return {
    network: 'threads',
    title: `${entry.author.handle ?? entry.author.name} on Threads`,
    post: entry,
    ...(parentAuthor ? { replyingTo: `@${parentAuthor.username}` } : {}),
    thread: repliesUnder(state, thread).map((reply) => entryOf(state, reply)),
  }
}

/** The author's own replies below a thread, each answering the thread or a reply before it. */
function repliesUnder(state: ThreadsSandboxState, thread: ThreadsPost): ThreadsPost[] {
  const ids = new Set([thread.id])
  const below: ThreadsPost[] = []
  const candidates = state.repliesOf(thread.userId).sort((a, b) => a.createdAt - b.createdAt)
  for (const candidate of candidates)
    if (candidate.replyToId && ids.has(candidate.replyToId)) {
      below.push(candidate)
      ids.add(candidate.id)
    }
  return below
}

function entryOf(state: ThreadsSandboxState, thread: ThreadsPost): WebEntry {
  const user = state.users.get(thread.userId)
  const containers = [...state.containers.values()]
  const items =
    thread.children.length > 0
      ? thread.children.map((id) => state.containers.get(id))
      : thread.mediaType === 'TEXT_POST'
        ? []
        : [containers.find((container) => container.threadId === thread.id)]
  return {
    author: {
      name: user?.username ?? 'threads',
      ...(user ? { handle: `@${user.username}`, picture: user.id } : {}),
    },
    at: thread.createdAt,
    text: thread.text,
    media: items.map((container): WebMedia => {
      const kind = container?.mediaType === 'VIDEO' ? 'video' : 'image'
      const key = container?.url ? keptKey(container.url) : undefined
      const alt = container?.altText !== undefined ? { alt: container.altText } : {}
      return key && state.kept.has(key) ? { kind, key, ...alt } : { kind, ...alt }
    }),
    ...(thread.linkAttachment ? { link: { url: thread.linkAttachment } } : {}),
  }
}
