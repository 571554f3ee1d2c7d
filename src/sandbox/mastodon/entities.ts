import type { MastodonSandboxState, SimAccount, SimApp, SimInstance, SimMedia, SimStatus } from './state.js'

/**
 * The simulator's answers as Mastodon's entities (entities/*.md), with every attribute the description
 * marks required, so clients that read them (Herald's adapter, masto, Mastodon.py) find what they expect.
 */

const iso = (ms: number) => new Date(ms).toISOString()

export function accountJson(state: MastodonSandboxState, instance: SimInstance, account: SimAccount) {
  const base = state.instanceUrl(instance)
  const avatar = `${base}/avatars/original/missing.png`
  return {
    id: account.id,
    username: account.username,
    acct: account.username,
    display_name: account.displayName,
    locked: false,
    bot: false,
    discoverable: true,
    indexable: true,
    group: false,
    created_at: iso(account.createdAt - (account.createdAt % 86_400_000)),
    note: '',
    url: `${base}/@${account.username}`,
    uri: `${base}/users/${account.username}`,
    avatar,
    avatar_static: avatar,
    header: `${base}/headers/original/missing.png`,
    header_static: `${base}/headers/original/missing.png`,
    followers_count: account.followers,
    following_count: account.following,
    statuses_count: [...instance.statuses.values()].filter((s) => s.accountId === account.id).length,
    last_status_at: null,
    emojis: [],
    fields: [],
  }
}

export function credentialAccountJson(
  state: MastodonSandboxState,
  instance: SimInstance,
  account: SimAccount,
) {
  return {
    ...accountJson(state, instance, account),
    source: {
      privacy: 'public',
      sensitive: false,
      language: 'en',
      note: '',
      fields: [],
      follow_requests_count: 0,
      indexable: true,
    },
    role: { id: '-99', name: '', permissions: '0', color: '', highlighted: false },
  }
}

export function applicationJson(app: SimApp) {
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: app.scopes,
    redirect_uri: app.redirectUris.join('\n'),
    redirect_uris: app.redirectUris,
    vapid_key: 'BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=',
  }
}

export function mediaJson(state: MastodonSandboxState, instance: SimInstance, media: SimMedia) {
  const base = `${state.instanceUrl(instance)}/system/media_attachments/files/${media.id}`
  const ready = media.pollsLeft <= 0
  return {
    id: media.id,
    type: media.type,
    url: ready ? `${base}/original/file` : null,
    preview_url: media.type === 'image' || ready ? `${base}/small/file` : null,
    remote_url: null,
    text_url: null,
    meta: {},
    description: media.description,
    blurhash: 'UFBWY:8_0Jxv4mx]t8t64.%M-:IUWGWAt6M}',
  }
}

export function statusJson(state: MastodonSandboxState, instance: SimInstance, status: SimStatus) {
  const account = instance.accounts.get(status.accountId) as SimAccount
  const app = instance.apps.get(status.appId)
  const parent = status.inReplyToId ? instance.statuses.get(status.inReplyToId) : undefined
  return {
    id: status.id,
    created_at: iso(status.createdAt),
    in_reply_to_id: status.inReplyToId,
    in_reply_to_account_id: parent ? parent.accountId : null,
    sensitive: status.spoilerText !== '' || false,
    spoiler_text: status.spoilerText,
    visibility: status.visibility,
    language: status.language,
    uri: `${state.instanceUrl(instance)}/users/${account.username}/statuses/${status.id}`,
    url: state.statusUrl(instance, account, status.id),
    replies_count: [...instance.statuses.values()].filter((s) => s.inReplyToId === status.id).length,
    reblogs_count: status.reblogs,
    favourites_count: status.favourites,
    quotes_count: 0,
    edited_at: null,
    content: status.content,
    reblog: null,
    application: app ? { name: app.name, website: app.website } : null,
    account: accountJson(state, instance, account),
    media_attachments: status.mediaIds.flatMap((id) => {
      const media = instance.media.get(id)
      return media ? [mediaJson(state, instance, media)] : []
    }),
    mentions: [],
    tags: [],
    emojis: [],
    card: null,
    poll: null,
    favourited: false,
    reblogged: false,
    muted: false,
    bookmarked: false,
    pinned: false,
  }
}

export function instanceV2Json(state: MastodonSandboxState, instance: SimInstance) {
  const s = instance.settings
  const base = state.instanceUrl(instance)
  return {
    domain: instance.host,
    title: s.title,
    version: s.version,
    ...(s.legacy ? {} : { api_versions: { mastodon: 6 } }),
    source_url: 'https://github.com/mastodon/mastodon',
    description: `${s.title}, simulated by Herald's sandbox`,
    usage: { users: { active_month: instance.accounts.size } },
    thumbnail: { url: `${base}/packs/media/images/preview.png` },
    icon: [],
    languages: ['en'],
    configuration: {
      urls: { streaming: base.replace(/^http/, 'ws'), status: null },
      vapid: {
        public_key:
          'BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=',
      },
      accounts: { max_featured_tags: 10, max_pinned_statuses: 5 },
      statuses: {
        max_characters: s.maxCharacters,
        max_media_attachments: s.maxMedia,
        characters_reserved_per_url: s.urlWeight,
      },
      media_attachments: {
        supported_mime_types: [
          'image/jpeg',
          'image/png',
          'image/gif',
          'image/webp',
          'video/mp4',
          'video/webm',
          'video/quicktime',
        ],
        description_limit: s.descriptionLimit,
        image_size_limit: s.imageSizeLimit,
        image_matrix_limit: 33_177_600,
        video_size_limit: s.videoSizeLimit,
        video_frame_rate_limit: 120,
        video_matrix_limit: 8_294_400,
      },
      polls: {
        max_options: 4,
        max_characters_per_option: 50,
        min_expiration: 300,
        max_expiration: 2_629_746,
      },
      translation: { enabled: false },
    },
    registrations: { enabled: true, approval_required: false, message: null },
    contact: { email: `admin@${instance.host.split(':')[0]}`, account: null },
    rules: [],
  }
}

/** `/api/v1/instance`, which older clients (Mastodon.py's version check) read. */
export function instanceV1Json(state: MastodonSandboxState, instance: SimInstance) {
  const v2 = instanceV2Json(state, instance)
  return {
    uri: instance.host,
    title: v2.title,
    short_description: v2.description,
    description: v2.description,
    email: v2.contact.email,
    version: v2.version,
    urls: { streaming_api: v2.configuration.urls.streaming },
    stats: {
      user_count: instance.accounts.size,
      status_count: instance.statuses.size,
      domain_count: 1,
    },
    thumbnail: v2.thumbnail.url,
    languages: v2.languages,
    registrations: true,
    approval_required: false,
    invites_enabled: false,
    configuration: {
      statuses: v2.configuration.statuses,
      media_attachments: v2.configuration.media_attachments,
      polls: v2.configuration.polls,
    },
    contact_account: null,
    rules: [],
  }
}

export function serverMetadataJson(state: MastodonSandboxState, instance: SimInstance) {
  const base = state.instanceUrl(instance)
  return {
    issuer: `${base}/`,
    service_documentation: 'https://docs.joinmastodon.org/',
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    app_registration_endpoint: `${base}/api/v1/apps`,
    revocation_endpoint: `${base}/oauth/revoke`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    scopes_supported: ['read', 'write', 'write:statuses', 'write:media', 'profile', 'follow', 'push'],
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    code_challenge_methods_supported: ['S256'],
    grant_types_supported: ['authorization_code', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  }
}
