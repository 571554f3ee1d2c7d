/** LinkedIn app credentials, hosts and the pinned API version (`config.networks.linkedin`, or the simulator). */
export interface LinkedInSettings {
  clientId: string
  clientSecret?: string | undefined
  /** `LinkedIn-Version` on every `/rest` call (`YYYYMM`); versions are sunset about a year after release. */
  version: string
  /** Whether the app has the Community Management API product: it may then ask for the organization scopes. */
  communityManagement: boolean
  /** `https://www.linkedin.com/oauth/v2/authorization`. */
  authorizeUrl: string
  /** `https://www.linkedin.com/oauth/v2/accessToken`. */
  tokenUrl: string
  /** `https://api.linkedin.com` (`/v2/userinfo` and `/rest/*` live under it); no trailing slash. */
  apiUrl: string
  /** Where people read posts: `${webUrl}/feed/update/<urn>`. Default {@link LINKEDIN_WEB_URL}; no trailing slash. */
  webUrl?: string | undefined
}

/** www.linkedin.com, whose post pages the URLs of published posts name unless the settings say otherwise. */
export const LINKEDIN_WEB_URL = 'https://www.linkedin.com'

/** Sign In with LinkedIn (OpenID Connect) and Share on LinkedIn: self-serve, every app has them. */
export const MEMBER_SCOPES = ['openid', 'profile', 'email', 'w_member_social'] as const
/** Community Management API: posting as, and reading statistics of, the pages the member administers. */
export const ORGANIZATION_SCOPES = [
  'w_organization_social',
  'r_organization_social',
  'rw_organization_admin',
] as const

export const linkedinScopes = (settings: Pick<LinkedInSettings, 'communityManagement'>): string[] =>
  settings.communityManagement ? [...MEMBER_SCOPES, ...ORGANIZATION_SCOPES] : [...MEMBER_SCOPES]
