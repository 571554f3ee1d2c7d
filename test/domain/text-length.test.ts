import { describe, expect, it } from 'vitest'
import { lengthOn, threadsLength } from '../../src/core/text-length.js'

describe('length as Threads counts it', () => {
  it('counts letters, accents and CJK as one each', () => {
    expect(threadsLength('hello')).toBe(5)
    expect(threadsLength('café')).toBe(4)
    expect(threadsLength('東京')).toBe(2)
  })

  it('counts an emoji as its UTF-8 bytes, whole sequences included', () => {
    expect(threadsLength('😀')).toBe(4)
    expect(threadsLength('❤️')).toBe(6)
    expect(threadsLength('👍🏽')).toBe(8)
    expect(threadsLength('👨‍👩‍👧')).toBe(18)
    expect(threadsLength('🇫🇷')).toBe(8)
  })

  it('is what lengthOn answers for threads, so 497 letters and an emoji are 501', () => {
    expect(lengthOn('threads', `${'a'.repeat(497)}😀`)).toBe(501)
    expect(lengthOn('instagram', `${'a'.repeat(497)}😀`)).toBe(498)
  })
})
