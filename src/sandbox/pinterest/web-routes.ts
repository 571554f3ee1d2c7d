import type { FastifyInstance } from 'fastify'
import type { WebMedia, WebPage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { PinterestSandboxState, SandboxPin } from './state.js'

/**
 * www.pinterest.com's pin pages, `/pin/:id/` under the web base: the picture (the image, the carousel's
 * images in order, or the video with its cover), the title, the link as a card that opens the destination,
 * the description and the account that pinned it, from what the simulator holds.
 */
export function registerPinterestWebPages(
  server: FastifyInstance,
  state: PinterestSandboxState,
  path: string,
) {
  registerWebPages(server, {
    path,
    network: 'pinterest',
    media: (key) => state.kept.get(key),
    routes(app, pages) {
      for (const url of ['/pin/:id', '/pin/:id/'])
        app.get<{ Params: { id: string } }>(url, async (request, reply) =>
          pages.send(request, reply, pinPage(state, request.params.id)),
        )
    },
  })
}

function pinPage(state: PinterestSandboxState, id: string): WebPage | undefined {
  const pin = state.pins.get(id)
  if (!pin) return undefined
  const account = state.accounts.get(pin.accountId)
  const board = state.boards.get(pin.boardId)
  return {
    network: 'pinterest',
    title: `${pin.title ?? pin.description?.slice(0, 60) ?? 'Pin'} on Pinterest`,
    post: {
      author: { name: board?.name ?? 'Board', handle: `@${account?.username ?? ''}` },
      at: pin.createdAt,
      ...(pin.title ? { title: pin.title } : {}),
      text: pin.description ?? '',
      media: mediaOf(state, pin),
      ...(pin.link ? { link: { url: pin.link } } : {}),
    },
  }
}

function mediaOf(state: PinterestSandboxState, pin: SandboxPin): WebMedia[] {
  const alt = pin.altText ? { alt: pin.altText } : {}
  if (pin.mediaType === 'video') {
    const video = `media-${pin.mediaId}`
    const cover = pin.cover?.key
    return [
      ...(cover ? [{ kind: 'image' as const, key: cover, alt: 'Cover' }] : []),
      { kind: 'video', ...(state.kept.has(video) ? { key: video } : {}), ...alt },
    ]
  }
  return pin.images.map((image) => ({ kind: 'image', ...(image.key ? { key: image.key } : {}), ...alt }))
}
