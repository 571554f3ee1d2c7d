import { renderToString } from 'preact-render-to-string'
import { findingInWords } from '../../core/finding-words.js'
import { isNetwork, type Network, networks } from '../../core/networks.js'
import { profileName } from './compose-previews.js'

/**
 * Where Compose shows what the check found: each count, blocker and warning beside the field it is about
 * (the copy of a network, the media, the thread, the first comment, the YouTube details, the time, the
 * profiles), and what cannot be placed in the summary by the buttons. The check's findings are sentences;
 * their place is read from the profile they name and the words they use. Pure, so it is tested alone; the
 * notes are rendered from JSX, every finding escaped by the renderer.
 */

/** One target's length as Herald counts it on its network, against the limit preflight reports. */
export interface TargetCount {
  platform: Network
  profileId: string
  username: string
  count: number
  limit: number
  /** What is counted when it is not the post itself: "thread post 2 of 3", "first comment". */
  what?: string
}

export interface Checked {
  ok: boolean
  counts: TargetCount[]
  blockers: string[]
  warnings: string[]
  credits: { cost: number; balance: number; remainingAfter: number }
}

export type Place =
  | 'profiles'
  | 'media'
  | 'thread'
  | 'comment'
  | 'youtube'
  | 'googlebusiness'
  | 'tiktok'
  | 'pinterest'
  | 'mastodon'
  | 'when'
  | 'general'
/** A field's key: a place, or the copy of all (`copy:all`) or of one network (`copy:twitter`). */
export type FieldKey = Place | `copy:${'all' | Network}`

const PLACES: Array<[Place | 'copy', RegExp]> = [
  // A Google Business Profile detail names its field (`googlebusiness.event.title`): before any word in it.
  ['googlebusiness', /^googlebusiness\./],
  // A repeated copy names its slot, but the fix is in the copy.
  ['copy', /same copy|the copy is|caption has/],
  // TikTok's choices (who can watch, the switches, the disclosure, the audit) before YouTube's "privacy".
  ['tiktok', /tiktok\.|tiktok app|branded content|audited/],
  ['pinterest', /\bpinterest\.(title|link|coverimageurl)|pinterest coverimageurl|pin title|pin's cover/],
  ['mastodon', /mastodon\.|contentwarning|\blanguage\b/],
  ['youtube', /\btitle\b|youtube\.|privacy|visibility/],
  ['thread', /\bthread/],
  ['comment', /\bcomment/],
  ['when', /schedul|\bdate\b|time ?zone|in the past|\bqueue|posting time|\bslot/],
  ['media', /media|image|video|attachment|photo|\bgif\b|aspect|resolution|duration|\bfile|carousel/],
  ['profiles', /reconnect|not connected|targetaccounts|no profile|\bprofiles?\b/],
  ['copy', /allows \d|character|hashtag|mention|\bcopy\b|content|same text|duplicate|\blink/],
]

/** The network a finding names ("linkedin @acme-li: ..."), when it names one. */
export function networkOf(finding: string): Network | undefined {
  const named = /\b([a-z]+) @\S/.exec(finding)?.[1]
  if (named && isNetwork(named)) return named
  const lead = /^(?:[\w.[\]]+: )?([a-z]+)\b/.exec(finding)?.[1]
  return lead && isNetwork(lead) ? lead : undefined
}

/** The field a finding is about. */
export function fieldOf(finding: string): FieldKey {
  const words = finding.toLowerCase()
  const place = PLACES.find(([, pattern]) => pattern.test(words))?.[0] ?? 'general'
  if (place !== 'copy') return place
  return `copy:${networkOf(finding) ?? 'all'}`
}

function CountLine({ count: c }: { count: TargetCount }) {
  const over = c.count > c.limit
  return (
    <li class={over ? 'over' : undefined}>
      {profileName(c.platform, c.username)}
      {c.what ? `, ${c.what}` : ''}: <strong>{c.count}</strong> / {c.limit} characters{over ? ' (over)' : ''}
    </li>
  )
}

function Findings({ kind, findings }: { kind: 'blocker' | 'warning'; findings: string[] }) {
  if (findings.length === 0) return null
  return (
    <ul class={`findings ${kind}s`}>
      {findings.map((f) => (
        <li class={kind}>
          <span class="visually-hidden">{kind === 'blocker' ? 'Blocker' : 'Warning'}: </span>
          {findingInWords(f)}
        </li>
      ))}
    </ul>
  )
}

function FieldNote(props: { counts: TargetCount[]; blockers: string[]; warnings: string[] }) {
  return (
    <>
      {props.counts.length > 0 ? (
        <ul class="counts">
          {props.counts.map((c) => (
            <CountLine count={c} />
          ))}
        </ul>
      ) : null}
      <Findings kind="blocker" findings={props.blockers} />
      <Findings kind="warning" findings={props.warnings} />
    </>
  )
}

/** Each field's counts and findings as HTML, keyed by field; fields with nothing to say are left out. */
export function fieldNotes(checked: Checked): Partial<Record<FieldKey, string>> {
  const counts = new Map<FieldKey, TargetCount[]>()
  const add = (key: FieldKey, c: TargetCount) => counts.set(key, [...(counts.get(key) ?? []), c])
  for (const c of checked.counts) {
    if (!c.what) {
      add('copy:all', c)
      add(`copy:${c.platform}`, c)
    } else add(c.what.startsWith('thread') ? 'thread' : 'comment', c)
  }
  const placed = (findings: string[]) => {
    const byField = new Map<FieldKey, string[]>()
    for (const f of findings) byField.set(fieldOf(f), [...(byField.get(fieldOf(f)) ?? []), f])
    return byField
  }
  const blockers = placed(checked.blockers)
  const warnings = placed(checked.warnings)
  const keys = new Set<FieldKey>([...counts.keys(), ...blockers.keys(), ...warnings.keys()])
  const notes: Partial<Record<FieldKey, string>> = {}
  for (const key of keys)
    notes[key] = renderToString(
      <FieldNote
        counts={counts.get(key) ?? []}
        blockers={blockers.get(key) ?? []}
        warnings={warnings.get(key) ?? []}
      />,
    )
  return notes
}

/** Each network tab's longest copy against its limit, and whether a blocker is about that network's copy. */
export function tabStates(
  checked: Checked,
): Partial<Record<Network, { count: number; limit: number; blocked: boolean }>> {
  const tabs: Partial<Record<Network, { count: number; limit: number; blocked: boolean }>> = {}
  for (const c of checked.counts) {
    if (c.what) continue
    const seen = tabs[c.platform]
    if (!seen || c.count - c.limit > seen.count - seen.limit)
      tabs[c.platform] = { count: c.count, limit: c.limit, blocked: false }
  }
  for (const b of checked.blockers) {
    const network = networkOf(b)
    const tab = network ? tabs[network] : undefined
    if (network && tab && fieldOf(b) === `copy:${network}`) tab.blocked = true
  }
  return tabs
}

/** The summary by the buttons: ready or not, the price against the balance, and what has no field. */
export function checkHtml(checked: Checked): string {
  const { cost, balance } = checked.credits
  const general = fieldNotes(checked).general ?? ''
  const placedBlockers = checked.blockers.filter((b) => fieldOf(b) !== 'general').length
  return renderToString(
    <>
      <p class={checked.ok ? 'ready' : 'not-ready'}>
        {checked.ok ? 'Ready to create.' : 'Not ready: fix the blockers below.'} It costs{' '}
        <strong>{cost}</strong> credit{cost === 1 ? '' : 's'} of {balance}.
      </p>
      {placedBlockers ? (
        <p class="muted">
          {placedBlockers} blocker{placedBlockers === 1 ? '' : 's'} shown beside{' '}
          {placedBlockers === 1 ? 'its field' : 'their fields'}.
        </p>
      ) : null}
      {general ? <div class="general-notes" dangerouslySetInnerHTML={{ __html: general }} /> : null}
    </>,
  )
}

/** A problem that stopped the check itself (the arguments were refused). */
export const problemHtml = (message: string) => renderToString(<p class="not-ready">Not ready: {message}</p>)

export const FIELD_KEYS: readonly FieldKey[] = [
  'profiles',
  'copy:all',
  ...networks.map((n) => `copy:${n}` as const),
  'media',
  'thread',
  'comment',
  'youtube',
  'googlebusiness',
  'tiktok',
  'pinterest',
  'mastodon',
  'when',
]
