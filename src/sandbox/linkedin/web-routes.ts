import type { FastifyInstance } from 'fastify'
import type { WebMedia, WebPage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { LinkedInSandboxState, SandboxPost } from './state.js'

/**
 * www.linkedin.com's post pages, `/feed/update/:urn` under the web base (a comment's link adds
 * `?commentUrn=`): the author (member or page), the copy as readers see it (cut at the first unescaped
 * reserved character, as LinkedIn does), the images or video from the uploads the simulator kept, an
 * article card, and the comments.
 */
export function registerLinkedInWebPages(server: FastifyInstance, state: LinkedInSandboxState, path: string) {
  registerWebPages(server, {
    path,
    network: 'linkedin',
    media: (key) => state.kept.get(key),
    routes(app, pages) {
      for (const url of ['/feed/update/:urn', '/feed/update/:urn/'])
        app.get<{ Params: { urn: string } }>(url, async (request, reply) =>
          pages.send(request, reply, postPage(state, request.params.urn)),
        )
    },
  })
}

/** The name LinkedIn shows for a member or page URN. */
function nameOf(state: LinkedInSandboxState, urn: string): string {
  const org = /^urn:li:organization:(\d+)$/.exec(urn)?.[1]
  if (org) return state.organizations.get(org)?.localizedName ?? 'LinkedIn page'
  const sub = /^urn:li:person:(.+)$/.exec(urn)?.[1]
  return (sub && state.memberBySub(sub)?.name) || 'LinkedIn member'
}

function postPage(state: LinkedInSandboxState, urn: string): WebPage | undefined {
  const post = state.posts.get(urn)
  if (!post) return undefined
  const name = nameOf(state, post.author)
  const article = post.content?.article as { source?: unknown; title?: unknown } | undefined
  const comments = [...state.comments.values()].filter((comment) => comment.object === urn)
  return {
    network: 'linkedin',
    title: `${name} on LinkedIn`,
    post: {
      // A member's picture (a page shows its initials, as Herald has no page logo).
      author: {
        name,
        ...(post.author.startsWith('urn:li:person:')
          ? { picture: post.author.slice('urn:li:person:'.length) }
          : {}),
      },
      at: post.createdAt,
      text: post.visibleText,
      media: mediaOf(state, post),
      ...(article && typeof article.source === 'string'
        ? {
            link: {
              url: article.source,
              ...(typeof article.title === 'string' ? { title: article.title } : {}),
            },
          }
        : {}),
    },
    comments: comments.map((comment) => ({
      author: { name: nameOf(state, comment.actor) },
      at: comment.createdAt,
      text: comment.text,
    })),
  }
}

/** One media (`content.media`) or a multi-image set (`content.multiImage`), by their asset URNs. */
function mediaOf(state: LinkedInSandboxState, post: SandboxPost): WebMedia[] {
  const content = post.content ?? {}
  const one = (content.media as { id?: unknown; altText?: unknown } | undefined) ?? undefined
  const many = (content.multiImage as { images?: Array<{ id?: unknown; altText?: unknown }> } | undefined)
    ?.images
  const refs = one ? [one] : (many ?? [])
  return refs
    .filter((ref): ref is { id: string; altText?: unknown } => typeof ref.id === 'string')
    .map((ref) => ({
      kind: ref.id.startsWith('urn:li:video:') ? ('video' as const) : ('image' as const),
      ...(state.kept.has(ref.id) ? { key: ref.id } : {}),
      ...(typeof ref.altText === 'string' ? { alt: ref.altText } : {}),
    }))
}
