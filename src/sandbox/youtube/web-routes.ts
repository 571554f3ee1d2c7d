import type { FastifyInstance } from 'fastify'
import type { WebPage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { YouTubeSandbox } from './state.js'

/**
 * www.youtube.com's watch pages under the web base: `/shorts/:id` and `/watch?v=` (a comment's link adds
 * `&lc=`): the video played from the upload the simulator kept (a poster when it was too large to keep),
 * its title, channel and description, and the comments on it.
 */
export function registerYouTubeWebPages(server: FastifyInstance, sandbox: YouTubeSandbox, path: string) {
  registerWebPages(server, {
    path,
    network: 'youtube',
    media: (key) => sandbox.kept.get(key),
    routes(app, pages) {
      app.get<{ Params: { id: string } }>('/shorts/:id', async (request, reply) =>
        pages.send(request, reply, videoPage(sandbox, request.params.id)),
      )
      app.get<{ Querystring: { v?: string } }>('/watch', async (request, reply) =>
        pages.send(request, reply, videoPage(sandbox, String(request.query.v ?? ''))),
      )
    },
  })
}

function videoPage(sandbox: YouTubeSandbox, id: string): WebPage | undefined {
  const video = sandbox.videos.get(id)
  if (!video) return undefined
  const channel = sandbox.channelById(video.channelId)
  const author = {
    name: channel?.title ?? 'YouTube channel',
    ...(channel ? { handle: channel.handle, picture: channel.id } : {}),
  }
  const snippet = video.resource.snippet
  const title = typeof snippet.title === 'string' ? snippet.title : ''
  const comments = [...sandbox.comments.values()].filter((comment) => comment.videoId === id)
  return {
    network: 'youtube',
    title: `${title} - YouTube`,
    post: {
      author,
      at: Date.parse(String(snippet.publishedAt)),
      title,
      text: typeof snippet.description === 'string' ? snippet.description : '',
      media: [{ kind: 'video', ...(sandbox.kept.has(id) ? { key: id } : {}) }],
    },
    comments: comments.map((comment) => {
      const by = sandbox.channelById(comment.channelId)
      return {
        author: { name: by?.title ?? 'YouTube channel', ...(by ? { handle: by.handle } : {}) },
        at: Date.parse(comment.publishedAt),
        text: comment.text,
      }
    }),
  }
}
