import type { AppContext } from '../app-context.js'
import { sweepHostedMedia } from './media-lifetime.js'

/** One sweep of hosted media past its retention (the worker's timer and `herald media gc`). */
export function sweepAppMedia(app: Pick<AppContext, 'store' | 'media' | 'clock' | 'config' | 'logger'>) {
  return sweepHostedMedia({
    db: app.store.db,
    storage: app.media.storage,
    now: app.clock.now(),
    retentionMs: app.config.mediaRetention.retentionMs,
    logger: app.logger,
  })
}
