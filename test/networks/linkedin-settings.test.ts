import { describe, expect, it } from 'vitest'
import { canConnect } from '../../src/adapters/apps.js'
import { linkedinSettings } from '../../src/adapters/registry.js'
import { loadConfig } from '../../src/platform/config.js'

describe('LinkedIn settings', () => {
  it('pins the configured LinkedIn-Version and asks for page scopes only when the app has Community Management', () => {
    const config = loadConfig({
      HERALD_LINKEDIN_CLIENT_ID: 'li-app',
      HERALD_LINKEDIN_CLIENT_SECRET: 'li-secret',
      HERALD_LINKEDIN_VERSION: '202605',
      HERALD_LINKEDIN_COMMUNITY_MANAGEMENT: '1',
    })
    expect(linkedinSettings(config)).toEqual({
      clientId: 'li-app',
      clientSecret: 'li-secret',
      version: '202605',
      communityManagement: true,
      authorizeUrl: 'https://www.linkedin.com/oauth/v2/authorization',
      tokenUrl: 'https://www.linkedin.com/oauth/v2/accessToken',
      apiUrl: 'https://api.linkedin.com',
      webUrl: 'https://www.linkedin.com',
    })
    expect(canConnect(config, 'linkedin')).toBe(true)
    const plain = loadConfig({})
    expect(linkedinSettings(plain)).toMatchObject({ version: '202608', communityManagement: false })
    expect(canConnect(plain, 'linkedin')).toBe(false)
  })

  it('refuses a version that is not YYYYMM', () => {
    expect(() => loadConfig({ HERALD_LINKEDIN_VERSION: '2026-08' })).toThrow(/YYYYMM/)
  })

  it('points at the simulator in sandbox mode, whose app has Community Management', () => {
    const config = loadConfig({ HERALD_SANDBOX: '1', PUBLIC_BASE_URL: 'http://127.0.0.1:3999' })
    expect(linkedinSettings(config)).toMatchObject({
      authorizeUrl: 'http://127.0.0.1:3999/sandbox/linkedin/oauth/v2/authorization',
      tokenUrl: 'http://127.0.0.1:3999/sandbox/linkedin/oauth/v2/accessToken',
      apiUrl: 'http://127.0.0.1:3999/sandbox/linkedin',
      communityManagement: true,
    })
  })
})
