import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger, scrubSecrets } from '../../src/platform/logger.js'

function capture() {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString())
      done()
    },
  })
  return { logger: createLogger('debug', sink), lines }
}

const secrets = {
  apiKey: 'hk_live_0123456789abcdefghij',
  access: 'ya29.access-token-value-0123456789',
  refresh: 'refresh-token-value-0123456789',
  password: 'correct horse battery staple',
}

describe('the logger redacts secrets wherever they appear', () => {
  it('blanks secret-named fields at any depth', () => {
    const { logger, lines } = capture()
    logger.info(
      {
        connection: { tokens: { accessToken: secrets.access, nested: { refresh_token: secrets.refresh } } },
        form: { password: secrets.password },
        request: { headers: { authorization: `Bearer ${secrets.access}`, 'x-api-key': secrets.apiKey } },
      },
      'something happened',
    )
    const out = lines.join('')
    for (const value of Object.values(secrets)) expect(out).not.toContain(value)
    expect(out).toContain('[Redacted]')
  })

  it('masks keys and tokens inside messages, URLs and error texts', () => {
    const { logger, lines } = capture()
    logger.warn(`called with ${secrets.apiKey}`)
    logger.info(
      { url: `https://api.example.com/cb?code=abc123456&access_token=${secrets.access}` },
      'callback',
    )
    logger.error({ err: new Error(`refused Authorization: Bearer ${secrets.access}`) }, 'send failed')
    logger.info(
      { body: `grant_type=refresh_token&refresh_token=${secrets.refresh}&client_secret=shh123456` },
      'x',
    )
    const out = lines.join('')
    for (const value of Object.values(secrets)) expect(out).not.toContain(value)
    expect(out).not.toContain('abc123456')
    expect(out).not.toContain('shh123456')
    expect(out).toContain('send failed')
  })

  it('keeps ordinary fields as they are', () => {
    expect(scrubSecrets({ postId: 'p1', tokenCount: 3, network: 'twitter' })).toEqual({
      postId: 'p1',
      tokenCount: 3,
      network: 'twitter',
    })
  })
})
