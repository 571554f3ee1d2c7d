import { describe, expect, it } from 'vitest'
import type { Network } from '../../src/core/networks.js'
import type { SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { heldOn, publishingOn, useFaultRig } from '../helpers/fault-rig.js'
import { afterEffect500 } from '../helpers/fault-script.js'

/**
 * Any answer other than a success to a call that may have taken effect is an unknown
 * outcome, on every network and every publishing call, whatever the error says about being transient
 * (Meta's code 2 with `is_transient`, any 5xx, a timeout). Transient stays for failures that certainly did
 * nothing: a 5xx on a step that creates nothing visible. Each case counts what the simulator holds.
 */

type Case = {
  network: Network
  call: string
  media?: string[]
  content?: string
  /** What the adapter answers when the call took effect and its answer was lost or failed. */
  expected: 'unknown_outcome' | 'published'
  /**
   * The call comes after waits longer than the late-answer case's 1.5 s (a Pinterest video pin follows its
   * upload's processing): its late answer is tested where the wait is longer (test/worker/pinterest-faults).
   */
  late?: false
}

const publishingCalls: Case[] = [
  { network: 'twitter', call: 'POST /2/tweets', expected: 'unknown_outcome' },
  { network: 'facebook', call: 'POST /{page}/feed', expected: 'unknown_outcome' },
  {
    network: 'facebook',
    call: 'POST /{page}/photos (published)',
    media: ['one.jpg'],
    expected: 'unknown_outcome',
  },
  {
    network: 'facebook',
    call: 'POST /{page}/feed with attached photos',
    media: ['one.jpg', 'two.jpg'],
    expected: 'unknown_outcome',
  },
  { network: 'facebook', call: 'POST /{page}/videos', media: ['clip.mp4'], expected: 'unknown_outcome' },
  {
    network: 'instagram',
    call: 'POST /{ig-user}/media_publish',
    media: ['photo.jpg'],
    expected: 'unknown_outcome',
  },
  { network: 'threads', call: 'POST /{user}/threads_publish', expected: 'unknown_outcome' },
  { network: 'linkedin', call: 'POST /rest/posts', expected: 'unknown_outcome' },
  // Bluesky reads the target's record key back; YouTube asks the upload session: both find the post.
  { network: 'bluesky', call: 'com.atproto.repo.createRecord', expected: 'published' },
  { network: 'youtube', call: 'PUT <session> (the bytes)', media: ['clip.mp4'], expected: 'published' },
  { network: 'pinterest', call: 'POST /v5/pins (an image)', media: ['one.jpg'], expected: 'unknown_outcome' },
  {
    network: 'pinterest',
    call: 'POST /v5/pins (a carousel)',
    media: ['one.jpg', 'two.jpg'],
    expected: 'unknown_outcome',
  },
  {
    network: 'pinterest',
    call: 'POST /v5/pins (a video)',
    media: ['clip.mp4'],
    expected: 'unknown_outcome',
    late: false,
  },
  // Mastodon is asked again with the status's Idempotency-Key, and answers with the status made.
  { network: 'mastodon', call: 'POST /api/v1/statuses', media: ['photo.jpg'], expected: 'published' },
]

const profiles = [
  { network: 'twitter', username: 'outcome_x' },
  { network: 'facebook', username: 'Outcome Bakery' },
  { network: 'instagram', username: 'outcome.bakery' },
  { network: 'threads', username: 'outcomebakery' },
  { network: 'linkedin', username: 'Outcome Park' },
  { network: 'bluesky', username: 'outcomebakery' },
  { network: 'youtube', username: 'outcome@example.com' },
  { network: 'pinterest', username: 'outcome_pins' },
  { network: 'mastodon', username: 'outcome@bakery.example' },
] as const

describe('a publishing call that may have taken effect', () => {
  const rig = useFaultRig(profiles)
  let serial = 0
  const attempt = async (c: Case, fault: Parameters<typeof rig.script.on>[1], signal?: AbortSignal) => {
    const before = heldOn[c.network](rig.h)
    rig.script.on(publishingOn(c.network), fault)
    const outcome = await rig.publish(
      c.network,
      `${c.call} on ${c.network}, attempt ${++serial}`,
      (c.media ?? []).map((name) => rig.media(name)),
      signal ? { signal } : {},
    )
    return {
      kind: outcome instanceof Error ? outcome.kind : 'published',
      message: outcome instanceof Error ? outcome.message : '',
      made: heldOn[c.network](rig.h) - before,
    }
  }

  it.each(publishingCalls.map((c) => [c.network, c.call, c] as const))(
    '%s %s answered 500 after its effect is never transient',
    async (_network, _call, c) => {
      const { kind, message, made } = await attempt(c, afterEffect500)
      expect(made).toBe(1)
      expect(kind, message).toBe(c.expected)
    },
    60_000,
  )

  it.each(publishingCalls.filter((c) => c.late !== false).map((c) => [c.network, c.call, c] as const))(
    '%s %s whose answer never comes (the caller gives up) is never transient',
    async (_network, _call, c) => {
      const { kind, message, made } = await attempt(
        c,
        { timing: 'after', answer: { kind: 'hang' } },
        AbortSignal.timeout(1500),
      )
      expect(made).toBe(1)
      expect(kind, message).toBe('unknown_outcome')
    },
    60_000,
  )

  it.each(publishingCalls.map((c) => [c.network, c.call, c] as const))(
    '%s %s whose connection is reset after its effect is never transient',
    async (_network, _call, c) => {
      const { kind, message, made } = await attempt(c, { timing: 'after', answer: { kind: 'reset' } })
      expect(made).toBe(1)
      expect(kind, message).toBe(c.expected)
    },
    60_000,
  )
})

describe('a step that creates nothing visible', () => {
  const rig = useFaultRig(profiles)
  const steps: {
    network: Network
    step: string
    media: string[]
    matches: (call: SimulatedCall) => boolean
  }[] = [
    {
      network: 'instagram',
      step: 'the container (POST /{ig-user}/media)',
      media: ['photo.jpg'],
      matches: (call) => call.network === 'instagram' && call.operation === 'media',
    },
    {
      network: 'threads',
      step: 'the container (POST /{user}/threads)',
      media: [],
      matches: (call) => call.network === 'threads' && call.operation === 'threads' && call.method === 'POST',
    },
    {
      network: 'facebook',
      step: 'an unpublished photo of a set',
      media: ['one.jpg', 'two.jpg'],
      matches: (call) => call.operation === 'photos' && !call.effectful,
    },
    {
      network: 'linkedin',
      step: 'the image upload (initializeUpload)',
      media: ['photo.jpg'],
      matches: (call) => call.operation === 'images.initializeUpload',
    },
    {
      network: 'pinterest',
      step: 'the video upload (POST /v5/media)',
      media: ['clip.mp4'],
      matches: (call) => call.network === 'pinterest' && call.operation === 'media/create',
    },
    {
      network: 'pinterest',
      step: "the file's upload to Pinterest's upload address",
      media: ['clip.mp4'],
      matches: (call) => call.network === 'pinterest' && call.operation === 'media/upload',
    },
  ]

  it.each(steps.map((s) => [s.network, s.step, s] as const))(
    '%s: %s answered 500 is transient and nothing was posted',
    async (_network, _step, s) => {
      const before = heldOn[s.network](rig.h)
      rig.script.on(s.matches, { timing: 'before', answer: { kind: 'status', status: 500 } })
      const outcome = await rig.publish(
        s.network,
        `A step that makes nothing visible on ${s.network}`,
        s.media.map((name) => rig.media(name)),
      )
      expect(outcome).toMatchObject({ kind: 'transient' })
      expect(heldOn[s.network](rig.h)).toBe(before)
    },
    60_000,
  )
})

describe('a publishing call throttled before its effect', () => {
  const rig = useFaultRig(profiles)
  const MINUTE = 60_000
  const nextMidnightUtc = (now: number) => Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000
  /** When each network's own 429 answer says to come back (the simulators send the network's headers). */
  const resets: { network: Network; media?: string[]; expected: (now: number) => [number, number] }[] = [
    // x-rate-limit-reset: the end of the 15-minute window, in epoch seconds.
    { network: 'twitter', expected: (now) => [now + 15 * MINUTE - 1000, now + 15 * MINUTE + 1000] },
    // X-Business-Use-Case-Usage: estimated_time_to_regain_access, in minutes.
    { network: 'facebook', expected: (now) => [now + 12 * MINUTE - 1000, now + 12 * MINUTE + 1000] },
    {
      network: 'instagram',
      media: ['photo.jpg'],
      expected: (now) => [now + 12 * MINUTE - 1000, now + 12 * MINUTE + 1000],
    },
    // X-App-Usage at 100%: Meta's app window is a rolling hour (Threads sends no business-use-case header).
    { network: 'threads', expected: (now) => [now + 60 * MINUTE - 1000, now + 60 * MINUTE + 1000] },
    // ratelimit-reset: the end of the PDS's hour window, in epoch seconds.
    { network: 'bluesky', expected: (now) => [now + 60 * MINUTE - 1000, now + 60 * MINUTE + 1000] },
    // Retry-After: seconds.
    {
      network: 'youtube',
      media: ['clip.mp4'],
      expected: (now) => [now + 30_000 - 1000, now + 30_000 + 1000],
    },
    // LinkedIn names no reset; its daily windows reset at midnight UTC.
    { network: 'linkedin', expected: (now) => [nextMidnightUtc(now), nextMidnightUtc(now)] },
    // Pinterest documents no reset header: a minute (Standard access meters writes per minute).
    { network: 'pinterest', media: ['one.jpg'], expected: (now) => [now + MINUTE, now + MINUTE + 1000] },
  ]

  it.each(resets.map((r) => [r.network, r] as const))(
    '%s: rate limited until the time the network gives, and nothing was posted',
    async (_network, r) => {
      const before = heldOn[r.network](rig.h)
      rig.script.on(publishingOn(r.network), { timing: 'before', answer: { kind: 'status', status: 429 } }, 3)
      const now = Date.now()
      const outcome = await rig.publish(
        r.network,
        `Throttled on ${r.network}`,
        (r.media ?? []).map((name) => rig.media(name)),
      )
      expect(outcome).toMatchObject({ kind: 'rate_limited' })
      const resetAt = (outcome as { options?: { resetAt?: number } }).options?.resetAt ?? 0
      const [low, high] = r.expected(now)
      expect(resetAt).toBeGreaterThanOrEqual(low)
      expect(resetAt).toBeLessThanOrEqual(high + (Date.now() - now))
      expect(heldOn[r.network](rig.h)).toBe(before)
    },
    60_000,
  )
})
