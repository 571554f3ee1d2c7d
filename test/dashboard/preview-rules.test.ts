import { describe, expect, it } from 'vitest'
import { networks } from '../../src/core/networks.js'
import { lengthOn } from '../../src/core/text-length.js'
import { cropAspect, cutCopy, previewRules } from '../../src/interfaces/dashboard/preview-rules.js'

describe('the preview rules', () => {
  it('leave copy within the cut whole', () => {
    expect(cutCopy('linkedin', 'a'.repeat(210))).toEqual({ shown: 'a'.repeat(210), cut: false })
  })

  it('cut LinkedIn copy after 210 characters, where "see more" folds it', () => {
    const { shown, cut } = cutCopy('linkedin', 'a'.repeat(300))
    expect(cut).toBe(true)
    expect(shown).toBe('a'.repeat(210))
  })

  it('cut X copy at 280 as X weighs it, never inside an emoji', () => {
    const { shown, cut } = cutCopy('twitter', '😀'.repeat(150))
    expect(cut).toBe(true)
    expect(shown).toBe('😀'.repeat(140))
    expect(lengthOn('twitter', shown)).toBe(280)
  })

  it('cut Bluesky copy by graphemes, keeping a joined emoji whole', () => {
    const family = '👨‍👩‍👧'
    const { shown } = cutCopy('bluesky', `${'b'.repeat(299)}${family}${family}`)
    expect(shown).toBe(`${'b'.repeat(299)}${family}`)
  })

  it('cut Instagram captions after about 125 characters, without trailing spaces', () => {
    const { shown } = cutCopy('instagram', `${'i'.repeat(124)}  and the rest of the caption`)
    expect(shown).toBe('i'.repeat(124))
  })

  it('keep a lone Instagram image between 4:5 and 1.91:1', () => {
    expect(cropAspect('instagram', 1, 9 / 16)).toBe(4 / 5)
    expect(cropAspect('instagram', 1, 3)).toBe(1.91)
    expect(cropAspect('instagram', 1, 1.5)).toBe(1.5)
    expect(cropAspect('instagram', 1)).toBe(1)
  })

  it('show one X image at 16:9 whatever its shape, and several in a grid', () => {
    expect(cropAspect('twitter', 1, 3 / 4)).toBe(16 / 9)
    expect(cropAspect('twitter', 3, 3 / 4)).toBe(previewRules.twitter.several.aspect)
    expect(previewRules.twitter.several.layout).toBe('grid')
    expect(previewRules.instagram.several.layout).toBe('carousel')
  })

  it('have a rule for every network, each with a sensible range', () => {
    for (const network of networks) {
      const rule = previewRules[network]
      expect(rule.single.min).toBeLessThanOrEqual(rule.single.max)
      expect(rule.cut.at).toBeGreaterThan(0)
      expect(rule.several.aspect).toBeGreaterThan(0)
    }
  })
})
