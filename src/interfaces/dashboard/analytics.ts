import type { FastifyInstance } from 'fastify'
import type { Network } from '../../core/networks.js'
import type { AppContext } from '../../modules/app-context.js'
import { profileReadingHistory } from '../../platform/db/statements/analytics.js'
import { type ConnectionRow, listConnections } from '../../platform/db/statements/connections.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import { firstValue } from '../../platform/form.js'
import type { ToolRunner } from '../tools/runner.js'
import { type PostSort, postFiguresTable, postSortOf, publishedPostFigures } from './analytics-posts.js'
import { callerOf, toolsAs } from './caller.js'
import { emptyState } from './first-run/empty-state.js'
import { csrfField, escapeHtml, networkLabels, page, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { assetUrl } from './ui/assets.js'
import { handleOf, profileAvatar } from './ui/avatar.js'
import { icon } from './ui/icons.js'

/**
 * Analytics: a card per connected profile with its stored reading (free, through get_profile_analytics), the
 * trend of its followers and a chart over time, a read that states its 1-credit price before spending it
 * (one call to action for a profile never read), and the published posts sortable by engagement.
 */

const FIGURES: Array<[key: 'followers' | 'following' | 'posts' | 'views', label: string]> = [
  ['followers', 'Followers'],
  ['following', 'Following'],
  ['posts', 'Posts'],
  ['views', 'Views'],
]

/** Followers gained or lost between the first and the latest reading, as words with an arrow. */
function trendOf(history: Array<{ at: number; summary: Record<string, number | null> }>) {
  const first = history.find((p) => typeof p.summary.followers === 'number')
  const last = history.findLast((p) => typeof p.summary.followers === 'number')
  if (!first || !last || first === last)
    return '<p class="trend muted">A trend appears after the second reading.</p>'
  const change = (last.summary.followers ?? 0) - (first.summary.followers ?? 0)
  const since = new Date(first.at).toISOString().slice(0, 10)
  const [tone, mark, words] =
    change > 0
      ? ['ok', icon('trending-up'), `+${change.toLocaleString('en-US')}`]
      : change < 0
        ? ['bad', icon('trending-down'), `−${(-change).toLocaleString('en-US')}`]
        : ['', icon('minus'), 'No change in']
  return `<p class="trend"><span class="chip ${tone}">${mark}${escapeHtml(words)} followers</span> <span class="muted">since ${escapeHtml(since)}</span></p>`
}

/** The button that reads the network now, at its price. */
function readForm(csrf: string, c: { platform: string; profile_id: string }, who: string, first: boolean) {
  const words = first ? 'Read now (1 credit)' : 'Refresh now (1 credit)'
  return `<form method="post" action="/analytics/refresh">${csrfField(csrf)}<input type="hidden" name="platform" value="${escapeHtml(c.platform)}"><input type="hidden" name="profileId" value="${escapeHtml(c.profile_id)}">
<button type="submit"${first ? ' class="primary"' : ''} aria-label="${escapeHtml(`${words.replace(' (1 credit)', '')} ${who} (1 credit)`)}">${icon('refresh-cw')}${words}</button></form>`
}

/** One profile's card: who, its figures and trend, a chart over time, or one call to read it the first time. */
async function profileCard(
  app: AppContext,
  runner: ToolRunner,
  who: SignedIn,
  c: ConnectionRow,
  i: number,
): Promise<string> {
  const reading = await toolsAs(runner)(who, 'get_profile_analytics', {
    platform: c.platform as Network,
    profileId: c.profile_id,
  })
  const a = reading.analytics
  const label = networkLabels[reading.platform]
  const handle = handleOf(reading.username)
  const head = `<div class="channel-who">${profileAvatar(c, 'large')}<div><h2 id="profile-${i}">${escapeHtml(handle)}</h2><p class="muted">${escapeHtml(label)}</p></div></div>`
  const open = `<li class="card profile-figures">${head}`
  if (a.unavailable)
    return `${open}<p class="muted">${escapeHtml(label)} does not report a profile's figures to apps like Herald.</p></li>`
  const csrf = who.session.csrfToken
  const error = a.error ? `<div class="problem"><p>${escapeHtml(a.error)}</p></div>` : ''
  if (!a.fetchedAt)
    return `${open}${error}<div class="never-read"><p>Never read yet. Reading ${escapeHtml(handle)} asks ${escapeHtml(label)} for its followers and views, and keeps them for a chart over time.</p>
${readForm(csrf, c, `${label} ${handle}`, true)}</div></li>`
  const history = await profileReadingHistory(app.store.db, who.workspace.id, c.id)
  const stats = FIGURES.filter(([key]) => typeof a.summary[key] === 'number')
    .map(
      ([key, name]) =>
        `<div><dt>${escapeHtml(name)}</dt><dd>${escapeHtml((a.summary[key] as number).toLocaleString('en-US'))}</dd></div>`,
    )
    .join('')
  const chart =
    history.length > 1
      ? `<canvas data-series="series-${i}" aria-label="${escapeHtml(`${label} ${handle}: followers and views over time`)}" role="img"></canvas>
<script type="application/json" id="series-${i}">${JSON.stringify(history).replace(/</g, '\\u003c')}</script>`
      : ''
  return `${open}${error}
<dl class="stats">${stats || '<div><dt>Figures</dt><dd class="muted">None reported</dd></div>'}</dl>
${trendOf(history)}${chart}
<div class="card-foot"><span class="muted">Read ${escapeHtml(a.fetchedAt.slice(0, 16).replace('T', ' '))} UTC</span>${readForm(csrf, c, `${label} ${handle}`, false)}</div></li>`
}

async function analyticsPage(
  app: AppContext,
  runner: ToolRunner,
  who: SignedIn,
  options: { notice?: string; problem?: string; sort?: PostSort } = {},
) {
  const connections = (await listConnections(app.store.db, who.workspace.id)).filter(
    (c) => c.status !== 'removed',
  )
  const cards: string[] = []
  for (const [i, c] of connections.entries()) cards.push(await profileCard(app, runner, who, c, i))
  const sort = options.sort ?? 'engagement'
  const posts = postFiguresTable(await publishedPostFigures(app.store.db, who.workspace.id, sort), sort)
  return page(
    'Analytics',
    `<div class="page-head"><h1>Analytics</h1></div>
${options.problem ? `<div class="problem" role="alert"><p>${escapeHtml(options.problem)}</p></div>` : ''}
${options.notice ? `<div class="notice" role="status"><p>${escapeHtml(options.notice)}</p></div>` : ''}
${
  cards.length === 0
    ? emptyState(
        'No numbers yet. Once a profile is connected, this page shows its followers and views over time, read from the network.',
        { href: '/channels', label: 'Connect a channel' },
      )
    : `<p class="muted">Figures already read are free to look at. Reading a profile from its network now costs 1 credit.</p>
<ul class="cards analytics-profiles" aria-label="Profiles">${cards.join('\n')}</ul>
<h2 id="posts">Posts</h2>
${posts}`
}
<script type="module" src="${assetUrl('analytics.js')}"></script>`,
    { signedIn: account(who) },
  )
}

export function registerAnalyticsRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const routes = signedInRoutes(scope)
  routes.get('/analytics', async (request, reply, who) => {
    const sort = postSortOf(firstValue((request.query as Record<string, unknown>).sort))
    return sendHtml(reply, 200, await analyticsPage(app, runner, who, { sort }))
  })

  routes.post('/analytics/refresh', async (request, reply, who) => {
    try {
      await runner.run(
        'get_profile_analytics',
        {
          workspaceId: who.workspace.id,
          platform: field(request, 'platform'),
          profileId: field(request, 'profileId'),
          refresh: true,
        },
        callerOf(who),
      )
      return sendHtml(
        reply,
        200,
        await analyticsPage(app, runner, who, { notice: 'Read from the network now (1 credit).' }),
      )
    } catch (error) {
      const appError = toAppError(error)
      return sendHtml(
        reply,
        httpStatusFor(appError.code),
        await analyticsPage(app, runner, who, { problem: appError.message }),
      )
    }
  })
}
