import { describe, expect, it } from 'vitest'
import { RESET_MESSAGE, STUCK_MESSAGE } from '../../src/core/post-status.js'
import { errorInWords } from '../../src/interfaces/mcp-apps/client/parts/words.js'

describe('a delivery error in the conversation view', () => {
  it('says a stuck send without naming a tool', () => {
    const said = errorInWords(STUCK_MESSAGE)
    expect(said).toContain('the outcome is unknown')
    expect(said).not.toMatch(/reset_stuck_post|publish_post_now/)
  })

  it('says an interrupted send without naming a tool', () => {
    expect(errorInWords(RESET_MESSAGE)).not.toMatch(/_post/)
  })

  it('names the button or the request in place of a tool name in any other message', () => {
    expect(errorInWords('Fix the copy with update_post, then publish_post_now')).toBe(
      'Fix the copy with an edit of the post, then “Retry failed profiles”',
    )
  })

  it('adds the fix for a lost connection', () => {
    expect(errorInWords('X refused the token: it was revoked')).toMatch(
      /Fix: reconnect the profile on Herald’s Channels page, then retry\.$/,
    )
  })

  it('leaves the network’s own refusal as a sentence when there is no fix to add', () => {
    expect(errorInWords('Record text too long')).toBe('Record text too long')
  })

  it('says what the network did in words, without its method or status', () => {
    expect(
      errorInWords('Bluesky com.atproto.repo.createRecord answered 400 InvalidRequest: Record text too long'),
    ).toBe('Bluesky refused the post: Record text too long')
  })
})
