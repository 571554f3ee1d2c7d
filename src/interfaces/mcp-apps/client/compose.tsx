import { useState } from 'preact/hooks'
import { findingInWords } from '../../../core/finding-words.js'
import { networkLabels } from '../../../core/networks.js'
import {
  checkSlot,
  instantToSlot,
  isValidTimezone,
  type Slot,
  slotToInstant,
} from '../../../core/schedule.js'
import type { Host, Json, ToolResult } from './parts/bridge.js'
import { answerOf, errorOf, mountView, type ViewProps } from './parts/mount.js'
import { Chip, NetworkMark, ToolButton } from './parts/parts.js'
import { credits, type PostView, postState, profileName } from './parts/words.js'

/**
 * Compose and preview (preflight_post, create_post): each profile's post as its network will show it (the
 * dashboard's renderer, drawn by Herald and handed over in the result's `_meta`), the blockers, warnings,
 * price and slot; the copy can be changed, per network too, and profiles dropped, then checked again; and
 * Schedule or Publish now ask the host to call create_post. A created post shows its id and state instead.
 */

const PREVIEW_META_KEY = 'herald/previewHtml'

interface Target {
  platform: keyof typeof networkLabels
  profileId: string
  username: string
}

interface Preflight {
  ok: boolean
  resolvedTargets: Target[]
  credits: { cost: number; balance: number; remainingAfter: number }
  blockers: string[]
  warnings: string[]
  queueSlots?: Array<Target & { scheduleDate: string; scheduleTime: string; timezone: string }>
}

interface Created {
  message: string
  postIds: string[]
  posts: PostView[]
}

interface Draft {
  content: string
  variants: Record<string, string>
  /** Profiles dropped from the post, by `platform:profileId`. */
  dropped: string[]
}

const keyOf = (t: Target) => `${t.platform}:${t.profileId}`

/** The call's arguments with the edits: the copy, each network's copy, and only the profiles kept. */
function argumentsOf(input: Json, draft: Draft, targets: Target[]): Json {
  const { platforms: _all, targetAccounts: _chosen, idempotencyKey: _key, ...rest } = input
  const variants = Object.fromEntries(Object.entries(draft.variants).filter(([, copy]) => copy.trim()))
  return withoutGaps({
    ...rest,
    content: draft.content,
    variants: Object.keys(variants).length ? variants : undefined,
    targetAccounts: targets
      .filter((t) => !draft.dropped.includes(keyOf(t)))
      .map((t) => ({ platform: t.platform, profileId: t.profileId })),
  })
}

/** The body without its undefined fields (postMessage would carry them; the tools refuse unknown shapes). */
const withoutGaps = (body: Json): Json =>
  Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined))

/**
 * The same moment on the person's own clock (the host's `timeZone`, else the browser's), when the post's zone
 * is another one: " (10:00 on 2031-06-06 your time)". Nothing when the zones agree or one is unknown.
 */
function inPersonsZone(slot: Slot, personZone: string | undefined): string {
  if (!personZone || personZone === slot.timezone) return ''
  if (!isValidTimezone(slot.timezone) || !isValidTimezone(personZone) || checkSlot(slot).length > 0) return ''
  const theirs = instantToSlot(slotToInstant(slot), personZone)
  const day = theirs.date === slot.date ? '' : ` on ${theirs.date}`
  return ` (${theirs.time}${day} your time, ${personZone})`
}

/** When the post would go out, in the words of the call, and on the person's clock when theirs differs. */
function slotWords(input: Json, check: Preflight | undefined, personZone: string | undefined): string {
  if (input.publishImmediately === true) return 'Goes out as soon as it is created'
  if (input.queue === true) {
    const slot = check?.queueSlots?.[0]
    return slot
      ? `Next free queue slot: ${slot.scheduleDate} ${slot.scheduleTime} ${slot.timezone}`
      : 'Next free queue slot'
  }
  if (typeof input.scheduleDate === 'string' && typeof input.scheduleTime === 'string') {
    const zone = typeof input.timezone === 'string' ? input.timezone : undefined
    const said = `Goes out ${input.scheduleDate} ${input.scheduleTime} ${zone ?? 'in the workspace’s zone'}`
    return `${said}${zone ? inPersonsZone({ date: input.scheduleDate, time: input.scheduleTime, timezone: zone }, personZone) : ''}`
  }
  return 'No time chosen yet: Publish now, or ask for a date and time'
}

/** The person's zone: the one the host says, else the browser's own. */
const personZone = (host: Host): string | undefined =>
  typeof host.context.timeZone === 'string'
    ? host.context.timeZone
    : Intl.DateTimeFormat().resolvedOptions().timeZone

/** A random key per body sent, so a click the host repeats creates the post once. */
const newKey = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return `view-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

function CreatedPosts({ created }: { created: Created }) {
  return (
    <section class="card" aria-label="Created">
      <p role="status">{created.message}</p>
      <ul class="targets">
        {created.posts.map((post) => {
          const state = postState(post)
          return (
            <li>
              {post.targets.map((t) => (
                <>
                  <NetworkMark platform={t.platform} />
                  <span class="who">{profileName(t.platform, t.username)}</span>
                </>
              ))}
              <Chip tone={state.tone}>{state.words}</Chip>
              <span class="muted">Post {post.id}</span>
            </li>
          )
        })}
      </ul>
    </section>
  )
}

function Findings({ check }: { check: Preflight }) {
  return (
    <>
      {check.blockers.length > 0 ? (
        <section class="findings bad" aria-label="What stops the post">
          <h2>What stops the post</h2>
          <ul>
            {check.blockers.map((b) => (
              <li>{findingInWords(b)}</li>
            ))}
          </ul>
        </section>
      ) : null}
      {check.warnings.length > 0 ? (
        <section class="findings warn" aria-label="Advice">
          <h2>Advice</h2>
          <ul>
            {check.warnings.map((w) => (
              <li>{findingInWords(w)}</li>
            ))}
          </ul>
        </section>
      ) : null}
      <p class="price">
        Costs <strong>{credits(check.credits.cost)}</strong> · balance {check.credits.balance}, after{' '}
        {check.credits.remainingAfter}
      </p>
    </>
  )
}

function Editor(props: { targets: Target[]; draft: Draft; setDraft(draft: Draft): void }) {
  const { draft, setDraft, targets } = props
  const networks = [...new Set(targets.map((t) => t.platform))]
  return (
    <details class="editor">
      <summary>Change the copy or the profiles</summary>
      <label for="copy">Copy</label>
      <textarea
        id="copy"
        rows={4}
        value={draft.content}
        onInput={(e) => setDraft({ ...draft, content: e.currentTarget.value })}
      />
      {networks.map((network) => (
        <>
          <label for={`copy-${network}`}>Copy for {networkLabels[network]} (empty: the copy above)</label>
          <textarea
            id={`copy-${network}`}
            rows={2}
            value={draft.variants[network] ?? ''}
            onInput={(e) =>
              setDraft({ ...draft, variants: { ...draft.variants, [network]: e.currentTarget.value } })
            }
          />
        </>
      ))}
      <fieldset>
        <legend>Profiles</legend>
        {targets.map((t) => (
          <label class="check">
            <input
              type="checkbox"
              checked={!draft.dropped.includes(keyOf(t))}
              onChange={(e) =>
                setDraft({
                  ...draft,
                  dropped: e.currentTarget.checked
                    ? draft.dropped.filter((k) => k !== keyOf(t))
                    : [...draft.dropped, keyOf(t)],
                })
              }
            />
            {profileName(t.platform, t.username)}
          </label>
        ))}
      </fieldset>
    </details>
  )
}

function Actions(props: {
  host: Host
  can: ViewProps['can']
  body: Json
  ready: boolean
  schedulable: boolean
  onCheck(result: ToolResult): void
  onCreate(result: ToolResult): void
}) {
  const [keys] = useState(() => new Map<string, string>())
  const withKey = (body: Json) => {
    const text = JSON.stringify(body)
    if (!keys.has(text)) keys.set(text, newKey())
    return withoutGaps({ ...body, idempotencyKey: keys.get(text) })
  }
  const { publishImmediately: _now, ...scheduled } = props.body
  return (
    <div class="actions">
      {props.can.check ? (
        <ToolButton
          host={props.host}
          tool="preflight_post"
          args={props.body}
          label="Check again"
          onAnswer={props.onCheck}
        />
      ) : null}
      {props.can.create ? (
        <>
          <ToolButton
            host={props.host}
            tool="create_post"
            args={withKey({ ...scheduled, publishImmediately: false })}
            label="Schedule"
            primary
            disabled={!props.ready || !props.schedulable}
            onAnswer={props.onCreate}
          />
          <ToolButton
            host={props.host}
            tool="create_post"
            args={withKey({
              ...scheduled,
              publishImmediately: true,
              scheduleDate: undefined,
              scheduleTime: undefined,
              queue: undefined,
            })}
            label="Publish now"
            disabled={!props.ready}
            onAnswer={props.onCreate}
          />
        </>
      ) : null}
    </div>
  )
}

function ComposeView({ host, can, input, result }: ViewProps) {
  const [checked, setChecked] = useState<ToolResult | undefined>()
  const [made, setMade] = useState<ToolResult | undefined>()
  const [draft, setDraft] = useState<Draft | undefined>()
  const refused = errorOf(result)
  if (refused)
    return (
      <p class="problem" role="alert">
        {refused}
      </p>
    )
  const created = answerOf<Created>(made) ?? answerOf<Created>(result)
  if (created?.postIds)
    return (
      <>
        <h1>Post created</h1>
        <CreatedPosts created={created} />
      </>
    )
  const current = checked && !checked.isError ? checked : result
  const check = answerOf<Preflight>(current)
  if (!check || !input) return <p class="waiting">Waiting for Herald’s answer…</p>
  const startDraft: Draft = {
    content: typeof input.content === 'string' ? input.content : '',
    variants: (input.variants as Record<string, string> | undefined) ?? {},
    dropped: [],
  }
  const shown = draft ?? startDraft
  const targets = answerOf<Preflight>(result)?.resolvedTargets ?? check.resolvedTargets
  const body = argumentsOf(input, shown, targets)
  // The buttons follow the latest check, made for exactly what is shown: an edit waits for Check again.
  const edited = draft !== undefined && JSON.stringify(draft) !== JSON.stringify(checkedDraft.current)
  const preview = current?._meta?.[PREVIEW_META_KEY]
  return (
    <>
      <h1>Preview</h1>
      <p class="slot">{slotWords(input, check, personZone(host))}</p>
      {typeof preview === 'string' ? (
        // Herald's own renderer wrote this HTML from JSX, every value escaped (src/interfaces/dashboard/compose-previews.tsx).
        <div class="previews" dangerouslySetInnerHTML={{ __html: preview }} />
      ) : (
        <ul class="targets">
          {check.resolvedTargets.map((t) => (
            <li>
              <NetworkMark platform={t.platform} />
              <span class="who">{profileName(t.platform, t.username)}</span>
              <span class="copy-line">{shown.variants[t.platform] || shown.content}</span>
            </li>
          ))}
        </ul>
      )}
      <Findings check={check} />
      <Editor targets={targets} draft={shown} setDraft={setDraft} />
      {edited ? (
        <p class="muted">Changed since the last check: check again before creating the post.</p>
      ) : null}
      <Actions
        host={host}
        can={can}
        body={body}
        ready={check.ok && !edited}
        schedulable={
          input.queue === true ||
          (typeof input.scheduleDate === 'string' && typeof input.scheduleTime === 'string')
        }
        onCheck={(answer) => {
          checkedDraft.current = shown
          setChecked(answer)
        }}
        onCreate={setMade}
      />
    </>
  )
}

/** The draft the latest passing check was made for (undefined: the call's own arguments). */
const checkedDraft: { current: Draft | undefined } = { current: undefined }

mountView(ComposeView)
