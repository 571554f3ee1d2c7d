import type { Caller } from '../accounts/caller.js'
import type { Surface } from './resource.js'

/** What the transports need from Herald's OAuth authorization server. */
export interface OAuthService {
  /**
   * The caller behind an access token presented on `surface`: the token must be one Herald issued, unexpired,
   * unrevoked, bound to a resource this surface serves, its grant live and its person still a member of the
   * grant's workspace. @throws {AppError} `unauthorized` otherwise.
   */
  verifyAccessToken(token: string, surface: Surface): Promise<Caller>
}
