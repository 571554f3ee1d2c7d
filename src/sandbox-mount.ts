import type { FastifyInstance } from 'fastify'
import { sandboxPrefixes } from './adapters/registry.js'
import type { AppContext } from './modules/app-context.js'
import { type BlueskySandbox, registerBlueskySandbox } from './sandbox/bluesky/index.js'
import type { FaultInjector } from './sandbox/fault-injector.js'
import { type GoogleBusinessSandbox, registerGoogleBusinessSandbox } from './sandbox/googlebusiness/index.js'
import { type LinkedInSandbox, registerLinkedInSandbox } from './sandbox/linkedin/index.js'
import { type MastodonSandbox, registerMastodonSandbox } from './sandbox/mastodon/index.js'
import { type MetaSandbox, registerMetaSandbox } from './sandbox/meta/index.js'
import { type PinterestSandbox, registerPinterestSandbox } from './sandbox/pinterest/index.js'
import { registerThreadsSandbox, type ThreadsSandbox } from './sandbox/threads/index.js'
import { registerTikTokSandbox, type TikTokSandbox } from './sandbox/tiktok/index.js'
import { registerTwitterSandbox, type TwitterSandbox } from './sandbox/twitter/index.js'
import { registerYouTubeSandbox, type YouTubeSandbox } from './sandbox/youtube/index.js'

export interface MountedSandboxes {
  twitter: TwitterSandbox
  youtube: YouTubeSandbox
  meta: MetaSandbox
  linkedin: LinkedInSandbox
  threads: ThreadsSandbox
  bluesky: BlueskySandbox
  googlebusiness: GoogleBusinessSandbox
  tiktok: TikTokSandbox
  pinterest: PinterestSandbox
  mastodon: MastodonSandbox
}

export interface SandboxMountOptions {
  /**
   * Asked about every request any simulator serves (tests and the fault simulation: calls refused, answered
   * badly after their effect, cut or left hanging). Demo mode has none.
   */
  faults?: FaultInjector
}

/**
 * Demo mode (HERALD_SANDBOX=1): the network simulators inside Herald's own server, under
 * `/sandbox/<network>`, driven by the app clock. `createAdapters` points the adapters at
 * `${PUBLIC_BASE_URL}/sandbox/<network>`, so connecting and publishing run the real adapter code over
 * HTTP against them. Each simulator also serves its network's post pages under `/sandbox/<network>/web`,
 * the adapters' web site in this mode, so a sandbox post's URL opens the post as the network shows it;
 * they exist only while the simulators are mounted. Bluesky's simulator is mounted even when a real PDS is configured; the adapter then
 * talks to that PDS instead.
 */
export function mountSandboxes(
  server: FastifyInstance,
  app: AppContext,
  options: SandboxMountOptions = {},
): MountedSandboxes {
  const faults = options.faults ? { faults: options.faults } : {}
  const twitter = registerTwitterSandbox(server, {
    prefix: sandboxPrefixes.twitter,
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.twitter}`,
    clock: () => app.clock.now(),
    ...faults,
  })
  const youtube = registerYouTubeSandbox(server, {
    prefix: sandboxPrefixes.youtube,
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.youtube}`,
    clock: app.clock,
    ...faults,
  })
  const meta = registerMetaSandbox(server, {
    prefix: sandboxPrefixes.facebook,
    clock: () => app.clock.now(),
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.facebook}`,
    ...faults,
  })
  const linkedin = registerLinkedInSandbox(server, {
    prefix: sandboxPrefixes.linkedin,
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.linkedin}`,
    clock: () => app.clock.now(),
    ...faults,
  })
  const threads = registerThreadsSandbox(server, {
    prefix: sandboxPrefixes.threads,
    clock: () => app.clock.now(),
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.threads}`,
    ...faults,
  })
  const bluesky = registerBlueskySandbox(server, {
    prefix: sandboxPrefixes.bluesky,
    clock: () => app.clock.now(),
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.bluesky}`,
    ...faults,
  })
  const googlebusiness = registerGoogleBusinessSandbox(server, {
    prefix: sandboxPrefixes.googlebusiness,
    clock: app.clock,
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.googlebusiness}`,
    ...faults,
  })
  const tiktok = registerTikTokSandbox(server, {
    prefix: sandboxPrefixes.tiktok,
    clock: () => app.clock.now(),
    // A demo's post is done at its first status poll; tests that follow the processing set more.
    processingPolls: 0,
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.tiktok}`,
    ...faults,
  })
  const pinterest = registerPinterestSandbox(server, {
    prefix: sandboxPrefixes.pinterest,
    clock: () => app.clock.now(),
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.pinterest}`,
    ...faults,
  })
  const mastodon = registerMastodonSandbox(server, {
    prefix: sandboxPrefixes.mastodon,
    clock: () => app.clock.now(),
    publicUrl: `${app.config.publicBaseUrl}${sandboxPrefixes.mastodon}`,
    ...faults,
  })
  app.logger.info(
    {
      subsystem: 'sandbox',
      twitter: `${app.config.publicBaseUrl}${sandboxPrefixes.twitter}`,
      youtube: `${app.config.publicBaseUrl}${sandboxPrefixes.youtube}`,
      meta: `${app.config.publicBaseUrl}${sandboxPrefixes.facebook}`,
      linkedin: `${app.config.publicBaseUrl}${sandboxPrefixes.linkedin}`,
      threads: `${app.config.publicBaseUrl}${sandboxPrefixes.threads}`,
      bluesky: `${app.config.publicBaseUrl}${sandboxPrefixes.bluesky}`,
      googlebusiness: `${app.config.publicBaseUrl}${sandboxPrefixes.googlebusiness}`,
      tiktok: `${app.config.publicBaseUrl}${sandboxPrefixes.tiktok}`,
      pinterest: `${app.config.publicBaseUrl}${sandboxPrefixes.pinterest}`,
      mastodon: `${app.config.publicBaseUrl}${sandboxPrefixes.mastodon}/<instance>`,
    },
    'sandbox mode: network simulators mounted',
  )
  return { twitter, youtube, meta, linkedin, threads, bluesky, googlebusiness, tiktok, pinterest, mastodon }
}
