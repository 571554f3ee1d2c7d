import { PassThrough } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../modules/app-context.js'
import { type ExportFormat, exportedPosts, writeExport } from '../../modules/export/posts-export.js'
import { fileStamp } from '../../platform/db/sqlite-copy.js'
import type { PostFilter } from '../../platform/db/statements/post-search.js'
import { problemPage, sendHtml } from './html.js'
import { filtersOf, type ListFilters } from './posts-list.js'
import { account } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'

/** The list's filters as the export reads them (the same as list_posts'). */
export function exportFilterOf(filters: ListFilters): PostFilter {
  const approval = filters.status.startsWith('approval:')
    ? filters.status.slice('approval:'.length)
    : undefined
  return {
    status: approval || filters.status === 'all' ? undefined : filters.status,
    approval,
    network: filters.network || undefined,
    profileId: filters.profile || undefined,
    from: filters.from || undefined,
    to: filters.to || undefined,
    search: filters.q || undefined,
  }
}

/**
 * `GET /posts/export?format=csv|json&<the list's filters>`: the posts of the signed-in workspace, as the Posts
 * page's Export links ask for them, downloaded as a file and streamed as it is read.
 */
export function registerPostExport(scope: FastifyInstance, app: AppContext) {
  const { get } = signedInRoutes(scope)
  get<{ Querystring: Record<string, string | undefined> }>('/posts/export', async (request, reply, who) => {
    const format = request.query.format ?? 'csv'
    if (format !== 'csv' && format !== 'json')
      return sendHtml(
        reply,
        400,
        problemPage('Unknown format', 'An export is CSV (format=csv) or JSON (format=json).', {
          signedIn: account(who),
        }),
      )
    const filter = exportFilterOf(filtersOf(request.query))
    const now = app.clock.now()
    const body = new PassThrough()
    const posts = exportedPosts(app.store.db, who.workspace.id, filter, now)
    const header = {
      workspace: { id: who.workspace.id, name: who.workspace.name },
      exportedAt: new Date(now).toISOString(),
      filter,
    }
    writeExport(body, format as ExportFormat, posts, header).then(
      () => body.end(),
      (error: Error) => {
        request.log.error({ err: error }, 'export failed')
        body.destroy(error)
      },
    )
    return reply
      .header(
        'content-type',
        format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
      )
      .header('content-disposition', `attachment; filename="herald-posts-${fileStamp(now)}.${format}"`)
      .header('cache-control', 'no-store')
      .send(body)
  })
}
