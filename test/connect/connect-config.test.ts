import { describe, expect, it } from 'vitest'
import { canConnect } from '../../src/adapters/apps.js'
import {
  blueskySettings,
  createAdapters,
  googleBusinessSettings,
  pinterestSettings,
  threadsSettings,
  tiktokSettings,
  twitterSettings,
  youtubeSettings,
} from '../../src/adapters/registry.js'
import type { MediaPort } from '../../src/core/media-port.js'
import { systemClock } from '../../src/platform/clock.js'
import { loadConfig } from '../../src/platform/config.js'
import { createLogger } from '../../src/platform/logger.js'

const media: MediaPort = {
  prepare: async () => {
    throw new Error('not used')
  },
}
const deps = { logger: createLogger('silent'), clock: systemClock, media }

describe('connect and sandbox settings', () => {
  it('points the adapters at the simulators under PUBLIC_BASE_URL in sandbox mode', () => {
    const config = loadConfig({ HERALD_SANDBOX: '1', PUBLIC_BASE_URL: 'http://127.0.0.1:4567/' })
    expect(twitterSettings(config)).toEqual({
      clientId: 'herald-sandbox',
      apiUrl: 'http://127.0.0.1:4567/sandbox/twitter/api',
      authorizeUrl: 'http://127.0.0.1:4567/sandbox/twitter/i/oauth2/authorize',
      webUrl: 'http://127.0.0.1:4567/sandbox/twitter/web',
    })
    expect(youtubeSettings(config)).toMatchObject({
      authorizeUrl: 'http://127.0.0.1:4567/sandbox/youtube/o/oauth2/v2/auth',
      tokenUrl: 'http://127.0.0.1:4567/sandbox/youtube/token',
      revokeUrl: 'http://127.0.0.1:4567/sandbox/youtube/revoke',
      apiUrl: 'http://127.0.0.1:4567/sandbox/youtube',
    })
    const adapters = createAdapters(config, deps)
    expect(Object.keys(adapters).sort()).toEqual([
      'bluesky',
      'facebook',
      'googlebusiness',
      'instagram',
      'linkedin',
      'mastodon',
      'pinterest',
      'threads',
      'tiktok',
      'twitter',
      'youtube',
    ])
    expect(tiktokSettings(config)).toEqual({
      clientKey: 'herald-sandbox',
      clientSecret: 'herald-sandbox-secret',
      audited: true,
      authorizeUrl: 'http://127.0.0.1:4567/sandbox/tiktok/v2/auth/authorize/',
      apiUrl: 'http://127.0.0.1:4567/sandbox/tiktok',
      webUrl: 'http://127.0.0.1:4567/sandbox/tiktok/web',
    })
    expect(canConnect(config, 'tiktok')).toBe(true)
    expect(threadsSettings(config)).toEqual({
      appId: 'herald-sandbox',
      appSecret: 'herald-sandbox-secret',
      version: 'v1.0',
      graphUrl: 'http://127.0.0.1:4567/sandbox/threads/graph',
      authorizeUrl: 'http://127.0.0.1:4567/sandbox/threads/oauth/authorize',
      webUrl: 'http://127.0.0.1:4567/sandbox/threads/web',
    })
    expect(canConnect(config, 'threads')).toBe(true)
    expect(pinterestSettings(config)).toEqual({
      appId: 'herald-sandbox',
      appSecret: 'herald-sandbox-secret',
      apiUrl: 'http://127.0.0.1:4567/sandbox/pinterest/v5',
      authorizeUrl: 'http://127.0.0.1:4567/sandbox/pinterest/oauth/',
      webUrl: 'http://127.0.0.1:4567/sandbox/pinterest/web',
    })
    expect(canConnect(config, 'pinterest')).toBe(true)
    expect(blueskySettings(config)).toEqual({
      serviceUrl: 'http://127.0.0.1:4567/sandbox/bluesky',
      plcUrl: 'http://127.0.0.1:4567/sandbox/bluesky/plc',
      allowLocalPds: true,
      webUrl: 'http://127.0.0.1:4567/sandbox/bluesky/web',
    })
    expect(canConnect(config, 'bluesky')).toBe(true)
    expect(canConnect(config, 'twitter')).toBe(true)
    // Google Business Profile: the simulator serves each of Google's four hosts under a path of its name.
    expect(googleBusinessSettings(config)).toEqual({
      clientId: 'herald-sandbox',
      clientSecret: undefined,
      authorizeUrl: 'http://127.0.0.1:4567/sandbox/googlebusiness/o/oauth2/v2/auth',
      tokenUrl: 'http://127.0.0.1:4567/sandbox/googlebusiness/token',
      revokeUrl: 'http://127.0.0.1:4567/sandbox/googlebusiness/revoke',
      postsUrl: 'http://127.0.0.1:4567/sandbox/googlebusiness/mybusiness',
      accountsUrl: 'http://127.0.0.1:4567/sandbox/googlebusiness/mybusinessaccountmanagement',
      locationsUrl: 'http://127.0.0.1:4567/sandbox/googlebusiness/mybusinessbusinessinformation',
      performanceUrl: 'http://127.0.0.1:4567/sandbox/googlebusiness/businessprofileperformance',
      webUrl: 'http://127.0.0.1:4567/sandbox/googlebusiness/web',
    })
    expect(canConnect(config, 'googlebusiness')).toBe(true)
  })

  it('gives Google Business Profile its own app, Google’s sign-in and the four real hosts outside sandbox mode', () => {
    const config = loadConfig({
      HERALD_GOOGLE_CLIENT_ID: 'youtube-app',
      HERALD_GOOGLE_BUSINESS_CLIENT_ID: 'gbp-app',
      HERALD_GOOGLE_BUSINESS_CLIENT_SECRET: 'gbp-secret',
    })
    expect(googleBusinessSettings(config)).toEqual({
      clientId: 'gbp-app',
      clientSecret: 'gbp-secret',
      authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      revokeUrl: 'https://oauth2.googleapis.com/revoke',
      postsUrl: 'https://mybusiness.googleapis.com',
      accountsUrl: 'https://mybusinessaccountmanagement.googleapis.com',
      locationsUrl: 'https://mybusinessbusinessinformation.googleapis.com',
      performanceUrl: 'https://businessprofileperformance.googleapis.com',
      webUrl: 'https://business.google.com',
    })
    // YouTube's app is not Business Profile's: each is its own network app.
    expect(canConnect(loadConfig({ HERALD_GOOGLE_CLIENT_ID: 'youtube-app' }), 'googlebusiness')).toBe(false)
  })

  it('builds the real adapters with the real endpoints outside sandbox mode', () => {
    const config = loadConfig({
      HERALD_TWITTER_CLIENT_ID: 'app-id',
      HERALD_TWITTER_CLIENT_SECRET: 'app-secret',
    })
    expect(twitterSettings(config)).toEqual({
      clientId: 'app-id',
      clientSecret: 'app-secret',
      apiUrl: 'https://api.x.com',
      authorizeUrl: 'https://x.com/i/oauth2/authorize',
      webUrl: 'https://x.com',
    })
    expect(youtubeSettings(config).tokenUrl).toBe('https://oauth2.googleapis.com/token')
    expect(Object.keys(createAdapters(config, deps)).sort()).toEqual([
      'bluesky',
      'facebook',
      'googlebusiness',
      'instagram',
      'linkedin',
      'mastodon',
      'pinterest',
      'threads',
      'tiktok',
      'twitter',
      'youtube',
    ])
    expect(canConnect(config, 'twitter')).toBe(true)
    expect(canConnect(config, 'youtube')).toBe(false)
    expect(canConnect(config, 'tiktok')).toBe(false)
    const tiktok = loadConfig({
      HERALD_TIKTOK_CLIENT_KEY: 'tt-key',
      HERALD_TIKTOK_CLIENT_SECRET: 'tt-secret',
    })
    expect(tiktokSettings(tiktok)).toEqual({
      clientKey: 'tt-key',
      clientSecret: 'tt-secret',
      // Until the administrator says TikTok audited the app, every post is private to the creator.
      audited: false,
      authorizeUrl: 'https://www.tiktok.com/v2/auth/authorize/',
      apiUrl: 'https://open.tiktokapis.com',
      webUrl: 'https://www.tiktok.com',
    })
    expect(
      tiktokSettings(loadConfig({ HERALD_TIKTOK_CLIENT_KEY: 'k', HERALD_TIKTOK_APP_AUDITED: '1' })).audited,
    ).toBe(true)
    expect(canConnect(loadConfig({}), 'twitter')).toBe(false)
    expect(canConnect(config, 'linkedin')).toBe(false)
    expect(canConnect(config, 'threads')).toBe(false)
    expect(canConnect(config, 'pinterest')).toBe(false)
    const pins = loadConfig({
      HERALD_PINTEREST_APP_ID: 'pin-app',
      HERALD_PINTEREST_APP_SECRET: 'pin-secret',
      HERALD_PINTEREST_API_URL: 'https://api-sandbox.pinterest.com/v5/',
    })
    expect(pinterestSettings(pins)).toEqual({
      appId: 'pin-app',
      appSecret: 'pin-secret',
      apiUrl: 'https://api-sandbox.pinterest.com/v5',
      authorizeUrl: 'https://www.pinterest.com/oauth/',
      webUrl: 'https://www.pinterest.com',
    })
    const threads = loadConfig({ HERALD_THREADS_APP_ID: 'th-app', HERALD_THREADS_APP_SECRET: 'th-secret' })
    expect(canConnect(threads, 'threads')).toBe(true)
    expect(threadsSettings(threads)).toEqual({
      appId: 'th-app',
      appSecret: 'th-secret',
      version: 'v1.0',
      graphUrl: 'https://graph.threads.net',
      authorizeUrl: 'https://threads.net/oauth/authorize',
      webUrl: 'https://www.threads.net',
    })
  })

  it('reads the Bluesky PDS and session settings', () => {
    const config = loadConfig({
      HERALD_SANDBOX: '1',
      HERALD_BLUESKY_SERVICE_URL: 'http://127.0.0.1:2583/',
      HERALD_BLUESKY_PLC_URL: 'http://127.0.0.1:2582',
      HERALD_BLUESKY_ALLOW_LOCAL_PDS: '1',
      HERALD_SESSION_TTL_HOURS: '2',
      PUBLIC_BASE_URL: 'https://herald.example.com',
    })
    expect(config.networks.bluesky).toEqual({
      serviceUrl: 'http://127.0.0.1:2583',
      configured: true,
      plcUrl: 'http://127.0.0.1:2582',
      allowLocalPds: true,
    })
    expect(config.dashboard).toEqual({ sessionTtlMs: 2 * 3_600_000, secureCookies: true })
    expect(canConnect(config, 'bluesky')).toBe(true)
    expect(Object.keys(createAdapters(config, deps))).toContain('bluesky')
    // A configured PDS replaces the simulator in sandbox mode.
    expect(blueskySettings(config)).toEqual({
      serviceUrl: 'http://127.0.0.1:2583',
      plcUrl: 'http://127.0.0.1:2582',
      allowLocalPds: true,
      webUrl: 'https://bsky.app',
    })
    expect(loadConfig({}).networks.bluesky).toMatchObject({
      serviceUrl: 'https://bsky.social',
      configured: false,
    })
    expect(loadConfig({}).dashboard).toEqual({ sessionTtlMs: 12 * 3_600_000, secureCookies: false })
  })
})
