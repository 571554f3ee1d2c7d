import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Network } from '../../core/networks.js'
import type { AppContext } from '../../modules/app-context.js'
import { profileReadingHistory } from '../../platform/db/statements/analytics.js'
import { listConnections } from '../../platform/db/statements/connections.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import type { ToolRunner } from '../tools/runner.js'
import { callerOf } from './caller.js'
import { emptyState } from './first-run/empty-state.js'
import { signedInOf } from './form-guard.js'
import { csrfField, escapeHtml, networkLabels, page, sendHtml } from './html.js'
import { account, field, redirectToLogin, type SignedIn, signedIn } from './request.js'

/**
 * Profile analytics: each connected profile's stored reading (free, through get_profile_analytics), a
 * refresh that states its 1-credit price before spending it, and a chart of the readings over time.
 */

const require = createRequire(import.meta.url)
// chart.js exports no path to its browser build: it sits beside the package's main file in dist/.
const chartJs = readFileSync(path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js'))

const ANALYTICS_SCRIPT = `for (const canvas of document.querySelectorAll('canvas[data-series]')) {
  const series = JSON.parse(document.getElementById(canvas.dataset.series).textContent)
  new Chart(canvas, {
    type: 'line',
    data: {
      labels: series.map((p) => new Date(p.at).toLocaleDateString()),
      datasets: ['followers', 'views'].map((key) => ({ label: key, data: series.map((p) => p.summary[key]) })),
    },
    options: { animation: false, responsive: true, spanGaps: true },
  })
}
`

interface ProfileAnalytics {
  platform: Network
  profileId: string
  username: string
  name: string
  analytics: {
    fetchedAt: string | null
    summary: Record<string, number | null>
    error: string
    unavailable: boolean
  }
}

async function analyticsPage(
  app: AppContext,
  runner: ToolRunner,
  who: SignedIn,
  message: { notice?: string; problem?: string } = {},
) {
  const csrf = who.session.csrfToken
  const connections = (await listConnections(app.store.db, who.workspace.id)).filter(
    (c) => c.status !== 'removed',
  )
  const sections: string[] = []
  for (const [i, c] of connections.entries()) {
    const reading = (await runner.run(
      'get_profile_analytics',
      { workspaceId: who.workspace.id, platform: c.platform, profileId: c.profile_id },
      callerOf(who),
    )) as ProfileAnalytics
    const history = await profileReadingHistory(app.store.db, who.workspace.id, c.id)
    const a = reading.analytics
    const figures = Object.entries(a.summary)
      .map(
        ([k, v]) =>
          `<tr><th scope="row">${escapeHtml(k)}</th><td>${v === null ? '—' : escapeHtml(v)}</td></tr>`,
      )
      .join('')
    const label = networkLabels[reading.platform]
    const chart =
      history.length > 1
        ? `<canvas data-series="series-${i}" aria-label="${escapeHtml(`${label} @${reading.username}: followers and views over time`)}" role="img"></canvas>
<script type="application/json" id="series-${i}">${JSON.stringify(history).replace(/</g, '\\u003c')}</script>`
        : '<p class="muted">A chart appears once there are two readings.</p>'
    sections.push(`<section aria-labelledby="profile-${i}"><h2 id="profile-${i}">${escapeHtml(label)}: @${escapeHtml(reading.username.replace(/^@+/, ''))}</h2>
<p class="muted">${a.unavailable ? 'This profile never reports analytics.' : a.fetchedAt ? `Read ${escapeHtml(a.fetchedAt.slice(0, 16).replace('T', ' '))} UTC` : 'Never read yet'}${a.error ? ` · ${escapeHtml(a.error)}` : ''}</p>
<table><tbody>${figures}</tbody></table>
${chart}
${
  a.unavailable
    ? ''
    : `<form method="post" action="/analytics/refresh">${csrfField(csrf)}<input type="hidden" name="platform" value="${escapeHtml(c.platform)}"><input type="hidden" name="profileId" value="${escapeHtml(c.profile_id)}">
<button type="submit" aria-label="Refresh ${escapeHtml(`${label} @${reading.username}`)} now (costs 1 credit)">Refresh now (costs 1 credit)</button></form>`
}</section>`)
  }
  return page(
    'Analytics',
    `<h1>Analytics</h1>
${message.problem ? `<div class="problem" role="alert"><p>${escapeHtml(message.problem)}</p></div>` : ''}
${message.notice ? `<div class="notice" role="status"><p>${escapeHtml(message.notice)}</p></div>` : ''}
${
  sections.length === 0
    ? emptyState(
        'No numbers yet. Once a profile is connected, this page shows its followers and views over time, read from the network.',
        { href: '/channels', label: 'Connect a channel' },
      )
    : `<p class="muted">Stored readings are free. A refresh reads the network now and costs 1 credit. A post's own figures are on its page.</p>
${sections.join('\n')}`
}
<script src="/dashboard/vendor/chart.js"></script><script src="/dashboard/analytics.js"></script>`,
    { signedIn: account(who) },
  )
}

export function registerAnalyticsRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  scope.get('/dashboard/vendor/chart.js', async (_request, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(chartJs),
  )
  scope.get('/dashboard/analytics.js', async (_request, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').send(ANALYTICS_SCRIPT),
  )

  scope.get('/analytics', async (request, reply) => {
    const who = await signedIn(app, request)
    if (!who) return redirectToLogin(reply, '/analytics')
    return sendHtml(reply, 200, await analyticsPage(app, runner, who))
  })

  scope.post('/analytics/refresh', async (request, reply) => {
    const who = signedInOf(request)
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
