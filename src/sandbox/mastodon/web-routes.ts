import type { FastifyInstance } from 'fastify'
import type { WebEntry, WebMedia, WebPage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { MastodonSandboxState, SimAccount, SimInstance, SimStatus } from './state.js'

/**
 * The instances' web pages under the web base, where a simulated status's `url` leads: a toot
 * (`/<instance>/@<user>/<id>`) with its content warning (the text and media behind it until the reader
 * opens it), its attachments and the author's replies under it, and an account (`/<instance>/@<user>`).
 */
export function registerMastodonWebPages(server: FastifyInstance, state: MastodonSandboxState, path: string) {
  registerWebPages(server, {
    path,
    network: 'mastodon',
    media: (key) => state.kept.get(key),
    routes(app, pages) {
      app.get<{ Params: { instance: string; at: string; id: string } }>(
        '/:instance/:at/:id',
        async (request, reply) => {
          const found = accountAt(state, request.params.instance, request.params.at)
          const status = found?.instance.statuses.get(request.params.id)
          const page =
            found && status?.accountId === found.account.id ? tootPage(found.instance, status) : undefined
          return pages.send(request, reply, page)
        },
      )
      app.get<{ Params: { instance: string; at: string } }>('/:instance/:at', async (request, reply) => {
        const found = accountAt(state, request.params.instance, request.params.at)
        return pages.sendProfile(
          request,
          reply,
          found && {
            network: 'mastodon',
            title: `${found.account.displayName} (@${found.account.username}@${found.instance.host})`,
            author: {
              name: found.account.displayName,
              handle: `@${found.account.username}@${found.instance.host}`,
            },
            posts: [...found.instance.statuses.values()]
              .filter((s) => s.accountId === found.account.id && s.inReplyToId === null)
              .sort((a, b) => b.createdAt - a.createdAt)
              .map((s) => ({
                entry: entryOf(found.instance, s),
                href: `${found.instance.host}/@${found.account.username}/${s.id}`,
              })),
          },
        )
      })
    },
  })
}

function accountAt(
  state: MastodonSandboxState,
  host: string,
  at: string,
): { instance: SimInstance; account: SimAccount } | undefined {
  const instance = state.instances.get(host.toLowerCase())
  if (!instance || !at.startsWith('@')) return undefined
  const account = [...instance.accounts.values()].find((a) => a.username === at.slice(1).toLowerCase())
  return account ? { instance, account } : undefined
}

function tootPage(instance: SimInstance, status: SimStatus): WebPage {
  const entry = entryOf(instance, status)
  const parent = status.inReplyToId ? instance.statuses.get(status.inReplyToId) : undefined
  const parentAuthor = parent && instance.accounts.get(parent.accountId)
  return {
    network: 'mastodon',
    title: `${entry.author.name}: "${status.spoilerText || status.text.slice(0, 60)}" - ${instance.host}`,
    post: entry,
    ...(parentAuthor ? { replyingTo: `@${parentAuthor.username}` } : {}),
    thread: repliesUnder(instance, status).map((reply) => entryOf(instance, reply)),
  }
}

/** The author's own replies below a status, each answering it or a reply before it, oldest first. */
function repliesUnder(instance: SimInstance, status: SimStatus): SimStatus[] {
  const ids = new Set([status.id])
  const below: SimStatus[] = []
  const candidates = [...instance.statuses.values()]
    .filter((s) => s.accountId === status.accountId && s.inReplyToId !== null)
    .sort((a, b) => a.createdAt - b.createdAt)
  for (const candidate of candidates)
    if (ids.has(candidate.inReplyToId as string)) {
      below.push(candidate)
      ids.add(candidate.id)
    }
  return below
}

function entryOf(instance: SimInstance, status: SimStatus): WebEntry {
  const account = instance.accounts.get(status.accountId)
  const media = status.mediaIds.flatMap((id): WebMedia[] => {
    const m = instance.media.get(id)
    if (!m) return []
    const kind = m.type === 'video' || m.type === 'gifv' ? 'video' : 'image'
    return [{ kind, ...(m.kept ? { key: m.kept } : {}), ...(m.description ? { alt: m.description } : {}) }]
  })
  return {
    author: {
      name: account?.displayName ?? 'mastodon',
      ...(account ? { handle: `@${account.username}@${instance.host}` } : {}),
    },
    at: status.createdAt,
    text: status.text,
    media,
    ...(status.spoilerText ? { contentWarning: status.spoilerText } : {}),
  }
}
