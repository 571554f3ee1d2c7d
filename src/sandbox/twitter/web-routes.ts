import type { FastifyInstance } from 'fastify'
import type { WebEntry, WebPage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { SandboxTweet, TwitterSandboxState } from './state.js'

/**
 * X's post pages, `/:username/status/:id` under the web base (x.com in production): the post, its media
 * from the uploads the simulator kept, and the author's replies under it (the rest of a thread). A post
 * under another account's name is not found, so a URL built with the wrong username shows as a 404.
 */
export function registerTwitterWebPages(server: FastifyInstance, state: TwitterSandboxState, path: string) {
  registerWebPages(server, {
    path,
    network: 'twitter',
    media: (key) => state.kept.get(key),
    routes(app, pages) {
      app.get<{ Params: { username: string; id: string } }>('/:username/status/:id', async (request, reply) =>
        pages.send(request, reply, tweetPage(state, request.params.username, request.params.id)),
      )
    },
  })
}

function tweetPage(state: TwitterSandboxState, username: string, id: string): WebPage | undefined {
  const tweet = state.tweets.get(id)
  if (!tweet || tweet.username.toLowerCase() !== username.toLowerCase()) return undefined
  const parent = tweet.inReplyToId ? state.tweets.get(tweet.inReplyToId) : undefined
  return {
    network: 'twitter',
    title: `${authorOf(state, tweet).name} on X: "${tweet.text.slice(0, 60)}" / X`,
    post: entryOf(state, tweet),
    ...(parent ? { replyingTo: `@${parent.username}` } : {}),
    thread: threadUnder(state, tweet).map((reply) => entryOf(state, reply)),
  }
}

/** The author's own replies below a post, each answering the one before or the post: its thread. */
function threadUnder(state: TwitterSandboxState, tweet: SandboxTweet): SandboxTweet[] {
  const below: SandboxTweet[] = []
  const ids = new Set([tweet.id])
  const candidates = [...state.tweets.values()]
    .filter((t) => t.conversationId === tweet.conversationId && t.authorId === tweet.authorId)
    .sort((a, b) => a.createdAt - b.createdAt)
  for (const candidate of candidates)
    if (candidate.inReplyToId && ids.has(candidate.inReplyToId)) {
      below.push(candidate)
      ids.add(candidate.id)
    }
  return below
}

const authorOf = (state: TwitterSandboxState, tweet: SandboxTweet) =>
  state.accounts.get(tweet.authorId) ?? { name: tweet.username }

function entryOf(state: TwitterSandboxState, tweet: SandboxTweet): WebEntry {
  return {
    author: { name: authorOf(state, tweet).name, handle: `@${tweet.username}`, picture: tweet.authorId },
    at: tweet.createdAt,
    text: tweet.text,
    media: tweet.mediaIds.map((mediaId) => {
      const media = state.media.get(mediaId)
      const kind = media?.kind === 'video' ? ('video' as const) : ('image' as const)
      const alt = media?.altText !== undefined ? { alt: media.altText } : {}
      return state.kept.has(mediaId) ? { kind, key: mediaId, ...alt } : { kind, ...alt }
    }),
  }
}
