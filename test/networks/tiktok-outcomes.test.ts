import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PublishRequest } from '../../src/adapters/adapter.js'
import type { Fault, SimulatedCall } from '../../src/sandbox/fault-injector.js'
import { heldOn, useFaultRig } from '../helpers/fault-rig.js'
import { afterEffect500 } from '../helpers/fault-script.js'

/**
 * Every TikTok call that can make something exist, answered badly after it took effect: the last chunk of
 * a video (direct post and inbox draft), and the photo init (direct post and draft). The last chunk's
 * publish id is already saved, so TikTok is asked about it and the post is recorded, never made again; a
 * photo init that went unanswered is an unknown outcome, left to the lookup. The oracle is what the
 * simulator holds.
 */

type Case = {
  call: string
  matches: (call: SimulatedCall) => boolean
  media: string[]
  tiktok: PublishRequest['tiktok']
  /** What the adapter answers when the call took effect and its answer was lost or failed. */
  afterLoss: 'published' | 'unknown_outcome'
}

const operation = (name: string) => (call: SimulatedCall) =>
  call.network === 'tiktok' && call.operation === name

const cases: Case[] = [
  {
    call: 'PUT the last chunk (direct post)',
    matches: operation('upload'),
    media: ['clip.mp4'],
    tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
    afterLoss: 'published',
  },
  {
    call: 'PUT the last chunk (inbox draft)',
    matches: operation('upload'),
    media: ['clip.mp4'],
    tiktok: { sendAsDraft: true },
    afterLoss: 'published',
  },
  {
    call: 'POST content/init (photos, direct post)',
    matches: operation('content/init'),
    media: ['one.jpg', 'two.jpg'],
    tiktok: { privacyLevel: 'SELF_ONLY' },
    afterLoss: 'unknown_outcome',
  },
  {
    call: 'POST content/init (photos, inbox draft)',
    matches: operation('content/init'),
    media: ['one.jpg'],
    tiktok: { sendAsDraft: true },
    afterLoss: 'unknown_outcome',
  },
]

describe('a TikTok call that may have taken effect', () => {
  const rig = useFaultRig([{ network: 'tiktok', username: 'outcome.bakery' }])
  beforeAll(() => {
    rig.h.sandboxes!.tiktok.processingPolls = 0
  })
  // TikTok takes six inits a minute per creator: these tests make more, as minutes apart.
  beforeEach(() => rig.h.sandboxes!.tiktok.refillBudgets())
  let serial = 0
  const attempt = async (c: Case, fault: Fault, signal?: AbortSignal) => {
    const before = heldOn.tiktok(rig.h)
    const jobs = rig.h.sandboxes!.tiktok.jobs.size
    rig.script.on(c.matches, fault)
    const outcome = await rig.publish(
      'tiktok',
      `${c.call}, attempt ${++serial}`,
      c.media.map((name) => rig.media(name)),
      { tiktok: c.tiktok, ...(signal ? { signal } : {}) },
    )
    return {
      kind: outcome instanceof Error ? outcome.kind : 'published',
      message: outcome instanceof Error ? outcome.message : '',
      made: heldOn.tiktok(rig.h) - before,
      inits: rig.h.sandboxes!.tiktok.jobs.size - jobs,
    }
  }

  it.each(cases.map((c) => [c.call, c] as const))(
    '%s answered 500 after its effect is never transient, and never inits twice',
    async (_call, c) => {
      const { kind, message, made, inits } = await attempt(c, afterEffect500)
      expect(made).toBe(1)
      expect(inits).toBe(1)
      expect(kind, message).toBe(c.afterLoss)
    },
    60_000,
  )

  it.each(cases.map((c) => [c.call, c] as const))(
    '%s whose answer never comes (the caller gives up) is never transient',
    async (_call, c) => {
      const { kind, message, made, inits } = await attempt(
        c,
        { timing: 'after', answer: { kind: 'hang' } },
        AbortSignal.timeout(1_500),
      )
      expect(made).toBe(1)
      expect(inits).toBe(1)
      expect(kind, message).toBe('unknown_outcome')
    },
    60_000,
  )

  it.each(cases.map((c) => [c.call, c] as const))(
    '%s whose connection is reset after its effect is never transient',
    async (_call, c) => {
      const { kind, message, made, inits } = await attempt(c, { timing: 'after', answer: { kind: 'reset' } })
      expect(made).toBe(1)
      expect(inits).toBe(1)
      expect(kind, message).toBe(c.afterLoss)
    },
    60_000,
  )
})

describe('a TikTok step that creates nothing anyone sees', () => {
  const rig = useFaultRig([{ network: 'tiktok', username: 'steps.bakery' }])
  beforeAll(() => {
    rig.h.sandboxes!.tiktok.processingPolls = 0
  })

  it.each([
    ['the video init', operation('video/init')],
    ['a creator info read', operation('creator_info/query')],
  ] as const)(
    '%s failing after its answer is lost is transient, and nothing is posted',
    async (_what, matches) => {
      const before = heldOn.tiktok(rig.h)
      rig.script.on(matches, { timing: 'after', answer: { kind: 'reset' } })
      const outcome = await rig.publish('tiktok', 'Nothing made yet', [rig.media('clip.mp4')], {
        tiktok: { privacyLevel: 'SELF_ONLY' },
      })
      expect(outcome).toBeInstanceOf(Error)
      expect((outcome as { kind?: string }).kind).toBe('transient')
      expect(heldOn.tiktok(rig.h) - before).toBe(0)
    },
  )

  it('the last chunk answered 429 after it took effect is the post, asked of the status', async () => {
    const before = heldOn.tiktok(rig.h)
    rig.script.on(operation('upload'), { timing: 'after', answer: { kind: 'status', status: 429 } })
    const outcome = await rig.publish('tiktok', 'Throttled after the upload', [rig.media('clip.mp4')], {
      tiktok: { privacyLevel: 'SELF_ONLY' },
    })
    expect(outcome).not.toBeInstanceOf(Error)
    expect(heldOn.tiktok(rig.h) - before).toBe(1)
  })

  it('the last chunk answered 429 before it took effect waits for the rate limit, with nothing posted', async () => {
    const before = heldOn.tiktok(rig.h)
    rig.script.on(operation('upload'), { timing: 'before', answer: { kind: 'status', status: 429 } })
    const outcome = await rig.publish('tiktok', 'Throttled before the upload', [rig.media('clip.mp4')], {
      tiktok: { privacyLevel: 'SELF_ONLY' },
    })
    expect((outcome as { kind?: string }).kind).toBe('rate_limited')
    expect(heldOn.tiktok(rig.h) - before).toBe(0)
  })

  it('a chunk refused with a 500 before it took effect is sent again from where TikTok says it stopped', async () => {
    const sandbox = rig.h.sandboxes!.tiktok
    const before = heldOn.tiktok(rig.h)
    const puts = rig.script.calls.filter(operation('upload')).length
    rig.script.on(operation('upload'), { timing: 'before', answer: { kind: 'status', status: 500 } })
    const outcome = await rig.publish('tiktok', 'Sent again from the status', [rig.media('clip.mp4')], {
      tiktok: { privacyLevel: 'SELF_ONLY' },
    })
    expect(outcome).not.toBeInstanceOf(Error)
    expect(heldOn.tiktok(rig.h) - before).toBe(1)
    expect(rig.script.calls.filter(operation('upload')).length - puts).toBe(2)
    expect([...sandbox.jobs.values()].at(-1)!.status).toBe('PUBLISH_COMPLETE')
  })
})
