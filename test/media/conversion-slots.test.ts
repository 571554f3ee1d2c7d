import { describe, expect, it } from 'vitest'
import { createConversionSlots } from '../../src/modules/media/conversion-slots.js'

const later = () => {
  let finish!: () => void
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  return { done, finish }
}
const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('conversion slots', () => {
  it('runs at most the slot count at once and starts the waiting ones in order', async () => {
    const slots = createConversionSlots(2)
    const started: number[] = []
    const gates = [later(), later(), later(), later()]
    const runs = gates.map((gate, i) =>
      slots.run(async () => {
        started.push(i)
        await gate.done
        return i
      }),
    )
    await tick()
    expect(started).toEqual([0, 1])
    expect([slots.running, slots.waiting]).toEqual([2, 2])
    gates[1]!.finish()
    await tick()
    expect(started).toEqual([0, 1, 2])
    gates[0]!.finish()
    gates[2]!.finish()
    gates[3]!.finish()
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3])
    expect([slots.running, slots.waiting]).toEqual([0, 0])
  })

  it('lets a waiting caller leave when its signal fires, without running its task', async () => {
    const slots = createConversionSlots(1)
    const gate = later()
    const first = slots.run(() => gate.done)
    const controller = new AbortController()
    let ran = false
    const second = slots.run(async () => {
      ran = true
    }, controller.signal)
    await tick()
    expect(slots.waiting).toBe(1)
    controller.abort()
    await expect(second).rejects.toMatchObject({
      reason: 'conversion_failed',
      message: 'The video conversion was cancelled',
    })
    expect(slots.waiting).toBe(0)
    gate.finish()
    await first
    expect(ran).toBe(false)
    expect(slots.running).toBe(0)
  })

  it('frees the slot when a task fails', async () => {
    const slots = createConversionSlots(1)
    await expect(slots.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await slots.run(async () => 'next')).toBe('next')
  })
})
