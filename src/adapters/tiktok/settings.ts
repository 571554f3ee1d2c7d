import type { AdapterDeps } from '../adapter.js'

/** The TikTok app (its client key and secret) and hosts, from `config.networks.tiktok` or the sandbox. */
export interface TikTokSettings {
  /** The app's client key; empty when not configured. */
  clientKey: string
  clientSecret?: string | undefined
  /** `https://www.tiktok.com/v2/auth/authorize/` (with its trailing slash). */
  authorizeUrl: string
  /** `https://open.tiktokapis.com`: the token, posting and Display API host; no trailing slash, no `/v2`. */
  apiUrl: string
  /** Where people watch posts and profiles. Default {@link TIKTOK_WEB_URL}. */
  webUrl?: string | undefined
  /**
   * Whether TikTok has audited the app for direct posting. Until it has, every post is private to the
   * creator and only private accounts can post; Herald warns, and sends anyway.
   */
  audited: boolean
  /** Bytes per FILE_UPLOAD chunk (5 to 64 MB; default 64 MB). Files up to it go in one chunk. */
  chunkBytes?: number | undefined
}

/** www.tiktok.com, which share and profile URLs name unless the settings say otherwise. */
export const TIKTOK_WEB_URL = 'https://www.tiktok.com'

/** What every TikTok call needs: the settings and the injected I/O. */
export interface TikTokContext {
  settings: TikTokSettings & { webUrl: string }
  deps: AdapterDeps
}

/**
 * Whether an `upload_url` the init answered may be sent the video: https on a TikTok API host
 * (`open-upload.tiktokapis.com`), or the configured API host itself (the sandbox). The chunk PUTs carry no
 * token, but they carry the creator's video.
 */
export function trustedUploadUrl(settings: Pick<TikTokSettings, 'apiUrl'>, raw: string): boolean {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  if (url.origin === new URL(settings.apiUrl).origin) return true
  return (
    url.protocol === 'https:' &&
    (url.hostname === 'tiktokapis.com' || url.hostname.endsWith('.tiktokapis.com'))
  )
}
