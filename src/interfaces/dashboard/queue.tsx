import type { FastifyInstance } from 'fastify'
import { isNetwork } from '../../core/networks.js'
import type { AppContext } from '../../modules/app-context.js'
import { listQueues, type QueueView, setQueue } from '../../modules/publishing/posting-queues.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import type { ToolRunner } from '../tools/runner.js'
import { toolsAs } from './caller.js'
import type { Account } from './compose-view.js'
import { networkLabels, page, sendHtml } from './html.js'
import { account, field, type SignedIn } from './request.js'
import { signedInRoutes } from './sign-in-guard.js'
import { Avatar } from './ui/avatar.js'
import { CsrfField, EmptyState, Messages } from './ui/parts.js'

/**
 * The posting queue of each profile: its weekly posting times in a time zone, edited as lines such as
 * "daily 09:00" or "mon-fri 17:30", with the next free times. Posts take them with "Add to queue" in
 * Compose, `queue: true` on create_post, or a CSV row with yes in its queue column (the page names only
 * what a manager sees: Compose and the CSV).
 */

function ZoneOptions({ selected }: { selected: string }) {
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')]
  if (!zones.includes(selected)) zones.unshift(selected)
  return (
    <>
      {zones.map((z) => (
        <option selected={z === selected}>{z}</option>
      ))}
    </>
  )
}

interface QueueMessage {
  notice?: string
  problem?: string
  key?: string
  slots?: string
  timezone?: string
}

function ProfileQueue({
  account: a,
  queue,
  message,
  csrf,
}: {
  account: Account
  queue: QueueView | undefined
  message: QueueMessage
  csrf: string
}) {
  const key = `${a.platform}:${a.profileId}`
  const failed = message.key === key
  const slots = failed ? (message.slots ?? '') : (queue?.slots ?? []).join('\n')
  const zone = failed ? (message.timezone ?? 'UTC') : (queue?.timezone ?? 'UTC')
  const name = `${isNetwork(a.platform) ? networkLabels[a.platform] : a.platform} @${a.username.replace(/^@+/, '')}`
  return (
    <li class="card queue-profile">
      <section aria-label={`Posting queue of ${name}`}>
        <div class="channel-who">
          <Avatar profile={a} size="large" />
          <h2>{name}</h2>
        </div>
        {failed && message.problem ? <Messages problem={message.problem} /> : null}
        {queue?.next.length ? (
          <>
            <p>Next free times:</p>
            <ol class="slots">
              {queue.next.map((n) => (
                <li>{`${n.scheduleDate} ${n.scheduleTime} ${n.timezone}`}</li>
              ))}
            </ol>
          </>
        ) : (
          <p class="muted">No posting times yet.</p>
        )}
        <form method="post" action="/queue">
          <CsrfField token={csrf} />
          <input type="hidden" name="profile" value={key} />
          <label>
            Posting times of {name}, one per line{' '}
            <textarea class="code" name="slots" rows={4} placeholder={'daily 09:00\nweekdays 17:30'}>
              {slots}
            </textarea>
          </label>
          <label>
            Time zone{' '}
            <select name="timezone">
              <ZoneOptions selected={zone} />
            </select>
          </label>
          <button type="submit" class="primary">
            Save the times of {name}
          </button>
        </form>
      </section>
    </li>
  )
}

function queuePage(who: SignedIn, accounts: Account[], queues: QueueView[], message: QueueMessage = {}) {
  const csrf = who.session.csrfToken
  return page(
    'Queue',
    <>
      <div class="page-head">
        <h1>Posting queue</h1>
      </div>
      <Messages notice={message.notice} />
      <p class="muted">
        Each profile's weekly posting times, in its time zone: write a line per time, as{' '}
        <code>daily 09:00</code>, <code>weekdays 12:30</code>, <code>mon-fri 17:00</code>,{' '}
        <code>sat,sun 10:00</code>. "Add to queue" in Compose (or <code>yes</code> in the queue column of an
        imported CSV file) gives a post its profile's next free time; a time stays at the same hour on the
        clock when daylight saving starts or ends. An empty list removes the queue.
      </p>
      {accounts.length ? (
        <ul class="cards queues">
          {accounts.map((a) => (
            <ProfileQueue
              account={a}
              queue={queues.find((q) => q.platform === a.platform && q.profileId === a.profileId)}
              message={message}
              csrf={csrf}
            />
          ))}
        </ul>
      ) : (
        <EmptyState
          text="No profile is connected yet. Each profile you connect gets its own weekly posting times here."
          action={{ href: '/channels', label: 'Connect a channel' }}
        />
      )}
    </>,
    { signedIn: account(who) },
  )
}

export function registerQueueRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const routes = signedInRoutes(scope)
  const tools = toolsAs(runner)
  const show = async (
    reply: Parameters<typeof sendHtml>[0],
    who: SignedIn,
    status: number,
    message?: QueueMessage,
  ) => {
    const [accounts, queues] = await Promise.all([
      tools(who, 'get_connected_accounts', {}),
      listQueues(app.store.db, who.workspace.id, app.clock.now()),
    ])
    return sendHtml(reply, status, queuePage(who, accounts, queues, message))
  }

  routes.get('/queue', async (_request, reply, who) => {
    return show(reply, who, 200)
  })

  routes.post('/queue', async (request, reply, who) => {
    const key = field(request, 'profile')
    const [platform, ...rest] = key.split(':')
    const slots = field(request, 'slots')
    const timezone = field(request, 'timezone') || 'UTC'
    try {
      const { connection, queue } = await setQueue(
        app.store.db,
        who.workspace.id,
        {
          platform: platform ?? '',
          profile: rest.join(':'),
          timezone,
          slots: slots
            .split(/\r?\n/)
            .map((l) => l.trim())
            .filter(Boolean),
        },
        app.clock.now(),
      )
      const name = `${isNetwork(connection.platform) ? networkLabels[connection.platform] : connection.platform} @${connection.username.replace(/^@+/, '')}`
      return show(reply, who, 200, {
        notice: queue ? `Saved the posting times of ${name}.` : `Removed the posting times of ${name}.`,
      })
    } catch (error) {
      const appError = toAppError(error)
      if (appError.code === 'internal') throw error
      return show(reply, who, httpStatusFor(appError.code), {
        problem: appError.message,
        key,
        slots,
        timezone,
      })
    }
  })
}
