/** The Pinterest app (its id and secret) and hosts, from `config.networks.pinterest`, or the simulator. */
export interface PinterestSettings {
  /** The app id from developers.pinterest.com; empty when not configured. */
  appId: string
  appSecret?: string | undefined
  /**
   * `https://api.pinterest.com/v5`, or `https://api-sandbox.pinterest.com/v5` for an app with Trial access
   * (Pinterest refuses a trial app's pins on the production host). No trailing slash.
   */
  apiUrl: string
  /** `https://www.pinterest.com/oauth/`: the consent page. */
  authorizeUrl: string
  /** Where people read pins: `${webUrl}/pin/<id>/`. Default {@link PINTEREST_WEB_URL}; no trailing slash. */
  webUrl?: string | undefined
}

/** www.pinterest.com, whose pin pages the URLs of published pins name unless the settings say otherwise. */
export const PINTEREST_WEB_URL = 'https://www.pinterest.com'

/**
 * The scopes Herald asks for (reference B.1): the account (`user_accounts:read`, for its name, counts and
 * analytics), its boards (to list them at connect, and because creating a pin needs `boards:read` and
 * `boards:write` as well as the pin scopes [spec: POST /pins security]), and its pins. Secret boards need
 * the `_secret` scopes, which Herald does not ask for: only public and protected boards are offered.
 */
export const PINTEREST_SCOPES = [
  'boards:read',
  'boards:write',
  'pins:read',
  'pins:write',
  'user_accounts:read',
] as const

const trim = (url: string) => url.replace(/\/+$/, '')

export const apiBase = (settings: PinterestSettings) => trim(settings.apiUrl)
export const webBase = (settings: PinterestSettings) => trim(settings.webUrl ?? PINTEREST_WEB_URL)

/** A pin's page on Pinterest (reference B.5). */
export const pinUrl = (settings: PinterestSettings, pinId: string) => `${webBase(settings)}/pin/${pinId}/`
