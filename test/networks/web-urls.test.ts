import { describe, expect, it } from 'vitest'
import {
  blueskySettings,
  linkedinSettings,
  metaSettings,
  threadsSettings,
  twitterSettings,
  youtubeSettings,
} from '../../src/adapters/registry.js'
import { type Config, loadConfig } from '../../src/platform/config.js'

/**
 * Where a published post's URL leads is configuration, as the API's address is: the adapters build every
 * post URL from their settings' web site, which is the network's own in production and the simulator's
 * pages in sandbox mode. (The adapter suites hold each adapter to building the network's own URLs from it.)
 */

const production = loadConfig({})
const sandbox = loadConfig({ HERALD_SANDBOX: '1', PUBLIC_BASE_URL: 'https://demo.example/' })

const SITES: Array<[string, (config: Config) => string | undefined, string, string]> = [
  ['X', (c) => twitterSettings(c).webUrl, 'https://x.com', '/sandbox/twitter/web'],
  ['YouTube', (c) => youtubeSettings(c).webUrl, 'https://www.youtube.com', '/sandbox/youtube/web'],
  [
    'Facebook',
    (c) => metaSettings(c).facebookWebUrl,
    'https://www.facebook.com',
    '/sandbox/meta/web/facebook',
  ],
  [
    'Instagram',
    (c) => metaSettings(c).instagramWebUrl,
    'https://www.instagram.com',
    '/sandbox/meta/web/instagram',
  ],
  ['LinkedIn', (c) => linkedinSettings(c).webUrl, 'https://www.linkedin.com', '/sandbox/linkedin/web'],
  ['Threads', (c) => threadsSettings(c).webUrl, 'https://www.threads.net', '/sandbox/threads/web'],
  ['Bluesky', (c) => blueskySettings(c).webUrl, 'https://bsky.app', '/sandbox/bluesky/web'],
]

describe("the web site a network's post URLs name", () => {
  it.each(SITES)(
    '%s: the network itself in production, the simulator in sandbox mode',
    (_n, site, real, path) => {
      expect(site(production)).toBe(real)
      expect(site(sandbox)).toBe(`https://demo.example${path}`)
    },
  )

  it('Bluesky names bsky.app in sandbox mode too when a real PDS stands in for the simulator', () => {
    const withPds = loadConfig({ HERALD_SANDBOX: '1', HERALD_BLUESKY_SERVICE_URL: 'https://pds.example' })
    expect(blueskySettings(withPds).webUrl).toBe('https://bsky.app')
  })
})
