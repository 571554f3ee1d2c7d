import { PublishFailure } from '../../adapters/adapter.js'
import { callbackUrl } from '../../adapters/apps.js'
import {
  connectsThroughInstances,
  type InstanceApp,
  type MastodonAdapter,
} from '../../adapters/mastodon/index.js'
import { consumeState, issueState } from '../../platform/crypto/state-tokens.js'
import { findMembership } from '../../platform/db/statements/accounts.js'
import type { AppContext } from '../app-context.js'
import {
  type ConnectOutcome,
  type Connector,
  NOTHING,
  type Refusal,
  refusalInAnswer,
  refused,
  stateMessages,
  storeConnection,
} from './flow.js'
import {
  appFor,
  forgetApp,
  knownInstance,
  readInstance,
  refusedClient,
  storedApp,
} from './mastodon-instances.js'

/**
 * Connecting a Mastodon profile: the person names their instance; Herald reads it (limits, OAuth
 * endpoints, PKCE), makes sure it has an app there (registering one the first time, or again when the
 * instance forgot it), and sends the browser to the instance's own sign-in page with a signed, single-use
 * state that names the instance. The callback exchanges the code with that instance's app and stores the
 * profile `@user@instance`. An instance is a host a person chose: its own words never reach the page, only
 * Herald's reading of what happened.
 */

const LABEL = 'Mastodon'

function adapterOf(app: AppContext): MastodonAdapter | Refusal {
  const adapter = app.adapters.mastodon
  return connectsThroughInstances(adapter)
    ? adapter
    : refused(404, 'Mastodon cannot be connected', 'This Herald has no Mastodon adapter.')
}

/** What went wrong with an instance, in Herald's words. */
function instanceProblem(host: string, step: string, error: unknown): Refusal {
  if (!(error instanceof PublishFailure))
    return refused(
      502,
      `${LABEL} connection failed`,
      `Herald could not complete ${step} with ${host}. ${NOTHING} Try again.`,
    )
  const code = error.options.code
  const why =
    code === 'HERALD_BLOCKED_ADDRESS'
      ? `${host} is not on a public address, and this Herald connects only to instances on the internet (its operator can allow private ones with HERALD_MASTODON_ALLOW_PRIVATE=1).`
      : code === 'NotMastodon' || error.options.status === 404
        ? `${host} does not answer as a Mastodon server does. Check the address of your instance.`
        : code === 'ForeignEndpoint'
          ? `${host} sends sign-ins to another host, which Herald does not follow.`
          : error.kind === 'transient' || error.kind === 'rate_limited' || error.kind === 'unknown_outcome'
            ? `${host} could not be reached just now${error.options.status ? ` (it answered ${error.options.status})` : ''}; try again in a moment.`
            : `${host} refused ${step}${error.options.status ? ` (it answered ${error.options.status})` : ''}.`
  const status =
    code === 'HERALD_BLOCKED_ADDRESS' || error.kind === 'invalid_content' || error.kind === 'auth_expired'
      ? 400
      : 502
  return refused(status, `${LABEL} connection failed`, `${why} ${NOTHING}`)
}

/** Step 1: the instance the person named, read and registered on, and the sign-in page to send them to. */
export async function startMastodonConnect(
  app: AppContext,
  who: Connector,
  instanceInput: string,
): Promise<{ kind: 'redirect'; url: string } | Refusal> {
  const adapter = adapterOf(app)
  if ('kind' in adapter) return adapter
  const host = adapter.instanceHost(instanceInput)
  if (!host)
    return refused(
      400,
      'Not an instance address',
      `"${instanceInput.trim().slice(0, 80)}" is not the address of a Mastodon instance. Give its name, such as mastodon.social, or your handle, such as @you@mastodon.social. ${NOTHING}`,
    )
  let info: Awaited<ReturnType<typeof readInstance>>
  let instanceApp: InstanceApp
  try {
    info = await readInstance(app, adapter, host)
  } catch (error) {
    return instanceProblem(host, 'describing itself', error)
  }
  try {
    instanceApp = await appFor(app, adapter, info)
  } catch (error) {
    return instanceProblem(host, "Herald's registration as an app", error)
  }
  const redirectUri = callbackUrl(app.config, 'mastodon')
  const { state, codeChallenge } = await issueState(
    { db: app.store.db, vault: app.vault, signer: app.signer, now: () => app.clock.now() },
    { workspaceId: who.workspaceId, userId: who.userId, platform: 'mastodon', redirectUri, instance: host },
  )
  return {
    kind: 'redirect',
    url: adapter.authorizeUrl(info, { clientId: instanceApp.clientId, state, codeChallenge, redirectUri }),
  }
}

/** Step 2, the callback: the state, the instance it names, the code exchange there, the profile. */
export async function finishMastodonConnect(
  app: AppContext,
  who: Connector | undefined,
  query: Record<string, string | undefined>,
): Promise<ConnectOutcome> {
  if (!who)
    return refused(
      401,
      'Not signed in',
      `You are not signed in to Herald, so this ${LABEL} answer cannot be matched to a connection you started. ${NOTHING} Sign in and start again from the channels page.`,
    )
  const adapter = adapterOf(app)
  if ('kind' in adapter) return adapter
  const state = await consumeState(
    { db: app.store.db, vault: app.vault, signer: app.signer, now: () => app.clock.now() },
    { state: query.state, platform: 'mastodon', userId: who.userId },
  )
  if (!state.ok) return refused(400, stateMessages[state.reason].title, stateMessages[state.reason].message)
  const connector = { userId: who.userId, workspaceId: state.row.workspace_id }
  if (!(await findMembership(app.store.db, connector.workspaceId, who.userId)))
    return refused(
      403,
      'Not a member',
      `You are no longer a member of the workspace this connection was started in. ${NOTHING}`,
    )
  const declined = refusalInAnswer(LABEL, query)
  if (declined) return declined
  const host = state.row.instance ?? ''
  const known = host ? await knownInstance(app.store.db, host) : undefined
  const instanceApp = host ? await storedApp(app, host) : undefined
  if (!known || !instanceApp)
    return refused(
      400,
      `${LABEL} connection failed`,
      `Herald no longer has its registration on ${host || 'this instance'}. ${NOTHING} Start again from the channels page.`,
    )
  let exchanged: Awaited<ReturnType<MastodonAdapter['exchangeCode']>>
  try {
    exchanged = await adapter.exchangeCode(known.info, instanceApp, {
      code: query.code as string,
      codeVerifier: state.codeVerifier,
      redirectUri: state.row.redirect_uri,
    })
  } catch (error) {
    if (refusedClient(error)) {
      await forgetApp(app, host, instanceApp)
      return refused(
        400,
        `${LABEL} connection failed`,
        `${host} no longer knows Herald's registration, so the sign-in could not be finished. ${NOTHING} Start again: Herald registers itself there anew.`,
      )
    }
    return instanceProblem(host, 'the sign-in code', error)
  }
  const missing = adapter.scopes.filter((scope) => !exchanged.grantedScopes.includes(scope))
  if (missing.length > 0)
    return refused(
      400,
      'Permission missing',
      `${host} did not grant every permission Herald needs. Missing: ${missing.join(', ')}. ${NOTHING}`,
    )
  let profile: Awaited<ReturnType<MastodonAdapter['resolveProfile']>>
  try {
    profile = await adapter.resolveProfile(exchanged.credentials)
  } catch (error) {
    return instanceProblem(host, 'naming the signed-in account', error)
  }
  return storeConnection(app, connector, 'mastodon', exchanged.credentials, profile, exchanged.grantedScopes)
}
