import type { FastifyInstance } from 'fastify'
import type { VNode } from 'preact'
import { isNetwork, type Network } from '../../core/networks.js'
import type { AppContext } from '../../modules/app-context.js'
import { profileReadingHistory } from '../../platform/db/statements/analytics.js'
import { type ConnectionRow, listConnections } from '../../platform/db/statements/connections.js'
import { httpStatusFor, invalid, toAppError } from '../../platform/errors.js'
import { firstValue } from '../../platform/form.js'
import type { ToolRunner } from '../tools/runner.js'
import { PostFiguresTable, type PostSort, postSortOf, publishedPostFigures } from './analytics-posts.js'
import { toolsAs } from './caller.js'
import { networkLabels, page, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { assetUrl } from './ui/assets.js'
import { Avatar, handleOf } from './ui/avatar.js'
import type { UiIcon } from './ui/icons.js'
import { CsrfField, EmptyState, Icon, Messages } from './ui/parts.js'

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
function Trend({ history }: { history: Array<{ at: number; summary: Record<string, number | null> }> }) {
  const first = history.find((p) => typeof p.summary.followers === 'number')
  const last = history.findLast((p) => typeof p.summary.followers === 'number')
  if (!first || !last || first === last)
    return <p class="trend muted">A trend appears after the second reading.</p>
  const change = (last.summary.followers ?? 0) - (first.summary.followers ?? 0)
  const since = new Date(first.at).toISOString().slice(0, 10)
  const [tone, mark, words]: [string, UiIcon, string] =
    change > 0
      ? ['ok', 'trending-up', `+${change.toLocaleString('en-US')}`]
      : change < 0
        ? ['bad', 'trending-down', `−${(-change).toLocaleString('en-US')}`]
        : ['', 'minus', 'No change in']
  return (
    <p class="trend">
      <span class={`chip ${tone}`}>
        <Icon name={mark} />
        {words} followers
      </span>{' '}
      <span class="muted">since {since}</span>
    </p>
  )
}

/** The button that reads the network now, at its price. */
function ReadForm(props: {
  csrf: string
  c: { platform: string; profile_id: string }
  who: string
  first: boolean
}) {
  const words = props.first ? 'Read now (1 credit)' : 'Refresh now (1 credit)'
  return (
    <form method="post" action="/analytics/refresh">
      <CsrfField token={props.csrf} />
      <input type="hidden" name="platform" value={props.c.platform} />
      <input type="hidden" name="profileId" value={props.c.profile_id} />
      <button
        type="submit"
        class={props.first ? 'primary' : undefined}
        aria-label={`${words.replace(' (1 credit)', '')} ${props.who} (1 credit)`}
      >
        <Icon name="refresh-cw" />
        {words}
      </button>
    </form>
  )
}

/** One profile's card: who, its figures and trend, a chart over time, or one call to read it the first time. */
async function profileCard(app: AppContext, runner: ToolRunner, who: SignedIn, c: ConnectionRow, i: number) {
  const reading = await toolsAs(runner)(who, 'get_profile_analytics', {
    platform: c.platform as Network,
    profileId: c.profile_id,
  })
  const a = reading.analytics
  const label = networkLabels[reading.platform]
  const handle = handleOf(reading.username)
  const head = (
    <div class="channel-who">
      <Avatar profile={c} size="large" />
      <div>
        <h2 id={`profile-${i}`}>{handle}</h2>
        <p class="muted">{label}</p>
      </div>
    </div>
  )
  if (a.unavailable)
    return (
      <li class="card profile-figures">
        {head}
        <p class="muted">{label} does not report a profile's figures to apps like Herald.</p>
      </li>
    )
  const csrf = who.session.csrfToken
  const error = a.error ? (
    <div class="problem">
      <p>{a.error}</p>
    </div>
  ) : null
  if (!a.fetchedAt)
    return (
      <li class="card profile-figures">
        {head}
        {error}
        <div class="never-read">
          <p>
            Never read yet. Reading {handle} asks {label} for its followers and views, and keeps them for a
            chart over time.
          </p>
          <ReadForm csrf={csrf} c={c} who={`${label} ${handle}`} first={true} />
        </div>
      </li>
    )
  const history = await profileReadingHistory(app.store.db, who.workspace.id, c.id)
  const stats = FIGURES.filter(([key]) => typeof a.summary[key] === 'number')
  return (
    <li class="card profile-figures">
      {head}
      {error}
      <dl class="stats">
        {stats.length ? (
          stats.map(([key, name]) => (
            <div>
              <dt>{name}</dt>
              <dd>{(a.summary[key] as number).toLocaleString('en-US')}</dd>
            </div>
          ))
        ) : (
          <div>
            <dt>Figures</dt>
            <dd class="muted">None reported</dd>
          </div>
        )}
      </dl>
      <Trend history={history} />
      {history.length > 1 ? (
        <>
          <canvas
            data-series={`series-${i}`}
            aria-label={`${label} ${handle}: followers and views over time`}
            role="img"
          />
          {/* The chart's data for the page's script; `<` is escaped so nothing in it can end the element. */}
          <script
            type="application/json"
            id={`series-${i}`}
            dangerouslySetInnerHTML={{ __html: JSON.stringify(history).replace(/</g, '\\u003c') }}
          />
        </>
      ) : null}
      <div class="card-foot">
        <span class="muted">Read {a.fetchedAt.slice(0, 16).replace('T', ' ')} UTC</span>
        <ReadForm csrf={csrf} c={c} who={`${label} ${handle}`} first={false} />
      </div>
    </li>
  )
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
  const cards: VNode[] = []
  for (const [i, c] of connections.entries()) cards.push(await profileCard(app, runner, who, c, i))
  const sort = options.sort ?? 'engagement'
  const posts = await publishedPostFigures(app.store.db, who.workspace.id, sort)
  return page(
    'Analytics',
    <>
      <div class="page-head">
        <h1>Analytics</h1>
      </div>
      <Messages problem={options.problem} />
      <Messages notice={options.notice} />
      {cards.length === 0 ? (
        <EmptyState
          text="No numbers yet. Once a profile is connected, this page shows its followers and views over time, read from the network."
          action={{ href: '/channels', label: 'Connect a channel' }}
        />
      ) : (
        <>
          <p class="muted">
            Figures already read are free to look at. Reading a profile from its network now costs 1 credit.
          </p>
          <ul class="cards analytics-profiles" aria-label="Profiles">
            {cards}
          </ul>
          <h2 id="posts">Posts</h2>
          <PostFiguresTable rows={posts} sort={sort} />
        </>
      )}
      <script type="module" src={assetUrl('analytics.js')} />
    </>,
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
      const platform = field(request, 'platform')
      if (!isNetwork(platform)) throw invalid('Choose a profile to read: that is not a network Herald knows.')
      await toolsAs(runner)(who, 'get_profile_analytics', {
        platform,
        profileId: field(request, 'profileId'),
        refresh: true,
      })
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
