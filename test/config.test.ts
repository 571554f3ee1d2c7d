import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/platform/config.js'

describe('configuration', () => {
  it('runs on embedded defaults with no environment', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      publicBaseUrl: 'http://127.0.0.1:3000',
      rateLimitPerMinute: 600,
    })
    expect(config.dataDir).toBe(path.resolve('./data'))
    expect(config.media).toEqual({ driver: 'local', dir: path.resolve('./data/media') })
    expect(config.immediateWaitMs).toBe(10_000)
  })

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['HERALD_SECRET_KEY', 'too-short'],
    ['LOG_LEVEL', 'loud'],
    ['HERALD_SANDBOX', 'maybe'],
    ['HERALD_RATE_LIMIT_PER_MINUTE', '0'],
    ['HERALD_MEDIA_STORAGE', 'ftp'],
  ])('fails at boot on a bad %s (%s) naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(name)
  })

  it('requires a bucket when media storage is S3', () => {
    expect(() => loadConfig({ HERALD_MEDIA_STORAGE: 's3' })).toThrow(/HERALD_S3_BUCKET/)
  })

  it('accepts a postgres URL, flags and a base64 secret', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@localhost:5432/db',
      HERALD_SANDBOX: '1',
      HERALD_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
      PUBLIC_BASE_URL: 'https://herald.example.com/',
    })
    expect(config.databaseUrl).toBe('postgres://u@localhost:5432/db')
    expect(config.sandbox).toBe(true)
    expect(config.secretKey?.length).toBe(32)
    expect(config.publicBaseUrl).toBe('https://herald.example.com')
  })

  it('normalises PUBLIC_BASE_URL, so an upper-case scheme still means https', () => {
    const config = loadConfig({ PUBLIC_BASE_URL: 'HTTPS://Herald.Example.com/base/' })
    expect(config.publicBaseUrl).toBe('https://herald.example.com/base')
    expect(config.dashboard.secureCookies).toBe(true)
  })
})
