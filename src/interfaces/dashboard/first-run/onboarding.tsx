import type { FastifyInstance } from 'fastify'
import type { VNode } from 'preact'
import type { AppContext } from '../../../modules/app-context.js'
import { connectDemoProfiles } from '../../../modules/connections/sandbox-connect.js'
import {
  closeOnboarding,
  type OnboardingState,
  onboardingState,
} from '../../../platform/db/statements/onboarding.js'
import { NextLink, networkLabels, problemPage, sendHtml } from '../html.js'
import { account, field, type SignedIn } from '../request.js'
import { signedInRoutes } from '../sign-in-guard.js'
import { CsrfField, Messages } from '../ui/parts.js'

/**
 * The onboarding checklist a new workspace sees on its first page (Posts): connect a channel, schedule a
 * first post, connect an assistant, and optionally add a webhook. Each step links to the page that does it
 * and is ticked from the workspace's rows (src/platform/db/statements/onboarding.ts). Once the required steps are done the
 * checklist says so once and closes for good; an owner may dismiss it earlier. In sandbox mode it offers to
 * connect a simulated profile on every network in one click.
 */

interface Step {
  key: keyof Omit<OnboardingState, 'closedAt'>
  title: string
  why: string
  href: string
  optional?: boolean
  /** Only owners reach the page that does it; an editor is told who does. */
  ownersOnly?: boolean
}

const STEPS: Step[] = [
  {
    key: 'channel',
    title: 'Connect a channel',
    why: 'Link a social profile, such as a LinkedIn page or an Instagram account, so Herald can post there.',
    href: '/channels',
  },
  {
    key: 'post',
    title: 'Schedule your first post',
    why: 'Write it once, pick the profiles and a time, and Herald posts it for you.',
    href: '/compose',
  },
  {
    key: 'assistant',
    title: 'Connect an AI assistant',
    why: 'Let Claude, ChatGPT or another assistant draft and schedule posts in this workspace, or make a key for your own tools.',
    href: '/integration',
  },
  {
    key: 'webhook',
    title: 'Tell another system when posts go out',
    why: 'Send each published or failed post to a chat channel, a spreadsheet or your own software.',
    href: '/webhooks',
    optional: true,
    ownersOnly: true,
  },
]

function StepItem({ step, done, who }: { step: Step; done: boolean; who: SignedIn }) {
  const title = `${step.title}${step.optional ? ' (optional)' : ''}`
  const reachable = !step.ownersOnly || who.workspace.role === 'owner'
  const why = reachable ? step.why : `${step.why} An owner of this workspace sets this up.`
  return (
    <li class={done ? 'done' : 'todo'}>
      <span class="mark" aria-hidden="true">
        {done ? '✓' : ''}
      </span>
      <p>
        {reachable ? (
          <a class="title" href={step.href}>
            {title}
          </a>
        ) : (
          <span class="title">{title}</span>
        )}{' '}
        <strong class="state">{done ? 'Done' : 'To do'}</strong>
        <br />
        <span class="muted">{why}</span>
      </p>
    </li>
  )
}

/** The checklist for this workspace (nothing once it has closed). The render that sees it done closes it. */
export async function onboardingSection(app: AppContext, who: SignedIn): Promise<VNode | null> {
  const state = await onboardingState(app.store.db, who.workspace.id)
  if (state.closedAt !== null) return null
  const required = STEPS.filter((step) => !step.optional)
  if (required.every((step) => state[step.key])) {
    await closeOnboarding(app.store.db, who.workspace.id, app.clock.now())
    return (
      <Messages
        notice={`${who.workspace.name} is set up: a channel is connected, a post is scheduled and an assistant can help. This checklist will not show again.`}
      />
    )
  }
  const left = required.filter((step) => !state[step.key]).length
  const csrf = who.session.csrfToken
  return (
    <section class="onboarding" aria-labelledby="onboarding-title">
      <h2 id="onboarding-title">Get {who.workspace.name} ready</h2>
      <p class="muted">
        {left} of {required.length} steps to go. Each one ticks itself once it is done.
      </p>
      <ol>
        {STEPS.map((step) => (
          <StepItem step={step} done={state[step.key]} who={who} />
        ))}
      </ol>
      {app.config.sandbox && !state.channel ? <SimulatedProfilesForm csrf={csrf} /> : null}
      {who.workspace.role === 'owner' ? (
        <form method="post" action="/onboarding/dismiss" class="dismiss">
          <CsrfField token={csrf} />
          <button type="submit">Hide this checklist</button>
        </form>
      ) : null}
    </section>
  )
}

/** Sandbox mode's one-click channels: a made-up profile on every network, from this Herald's simulators. */
export const SimulatedProfilesForm = ({
  csrf,
  back = '/posts',
}: {
  csrf: string
  back?: '/posts' | '/channels'
}) => (
  <form method="post" action="/onboarding/simulated-profiles" class="simulated">
    <CsrfField token={csrf} />
    <input type="hidden" name="next" value={back} />
    <p class="muted" id="simulated-hint">
      Sandbox mode: connect one made-up profile on every network, served by this Herald's simulators, to try
      everything without real accounts.
    </p>
    <button type="submit" class="primary" aria-describedby="simulated-hint">
      Connect simulated profiles
    </button>
  </form>
)

/** A notice after "Connect simulated profiles", from the counts in the address it returned to. */
export function simulatedNotice(query: Record<string, unknown>): string | undefined {
  const count = Number.parseInt(String(query.simulated ?? ''), 10)
  if (!Number.isSafeInteger(count) || count < 0) return undefined
  const missed = String(query.missed ?? '')
    .split(',')
    .filter((network): network is keyof typeof networkLabels => Object.hasOwn(networkLabels, network))
    .map((network) => networkLabels[network])
  const connected = `Connected ${count} simulated profile${count === 1 ? '' : 's'}.`
  return missed.length > 0
    ? `${connected} Not connected: ${missed.join(', ')} (the Channels page connects them one by one).`
    : connected
}

export function registerOnboardingRoutes(scope: FastifyInstance, app: AppContext) {
  const routes = signedInRoutes(scope)
  routes.post('/onboarding/dismiss', async (_request, reply, who) => {
    if (who.workspace.role !== 'owner')
      return sendHtml(
        reply,
        403,
        problemPage('Owners only', 'Only an owner of this workspace hides its checklist.', {
          signedIn: account(who),
          next: <NextLink href="/posts" label="Back to posts" />,
        }),
      )
    await closeOnboarding(app.store.db, who.workspace.id, app.clock.now())
    return reply.redirect('/posts', 303)
  })

  routes.post('/onboarding/simulated-profiles', async (request, reply, who) => {
    if (!app.config.sandbox)
      return sendHtml(
        reply,
        404,
        problemPage(
          'Not in sandbox mode',
          'Simulated profiles exist only when Herald runs in sandbox mode.',
          {
            signedIn: account(who),
            next: <NextLink href="/channels" label="Connect a real profile" />,
          },
        ),
      )
    const { connected, failed } = await connectDemoProfiles(app, {
      workspaceId: who.workspace.id,
      userId: who.user.id,
    })
    for (const miss of failed)
      request.log.warn({ network: miss.network, reason: miss.reason }, 'simulated profile not connected')
    const missed = failed.length > 0 ? `&missed=${failed.map((f) => f.network).join(',')}` : ''
    const back = field(request, 'next') === '/channels' ? '/channels' : '/posts'
    return reply.redirect(`${back}?simulated=${connected.length}${missed}`, 303)
  })
}
