import type { Config } from '../../platform/config.js'

/**
 * The settings a backup keeps (`settings.json`): what this Herald ran with, so the machine it moves to can be
 * set up alike, with every secret left out: the vault keys, the networks' app secrets, the S3 credentials,
 * the image API key, the metrics token, and the database URL's password.
 */

const LEFT_OUT = '(a secret: not in the backup)'

const withoutPassword = (url: string | undefined) => {
  if (!url) return undefined
  const parsed = new URL(url)
  if (parsed.password) parsed.password = 'LEFT-OUT'
  return parsed.href.replace(':LEFT-OUT@', ':(password left out)@')
}

const secret = (value: string | undefined) => (value ? LEFT_OUT : undefined)

export function publicSettings(config: Config): Record<string, unknown> {
  const { networks } = config
  return {
    publicBaseUrl: config.publicBaseUrl,
    host: config.host,
    port: config.port,
    dataDir: config.dataDir,
    database: config.databaseUrl ? withoutPassword(config.databaseUrl) : 'sqlite (in the data folder)',
    secretKey: config.secretKey
      ? 'HERALD_SECRET_KEY (not in the backup)'
      : 'secret.key in the data folder (not in the backup)',
    oldSecretKeys: config.oldSecretKeys.length > 0 ? LEFT_OUT : undefined,
    sandbox: config.sandbox,
    rateLimitPerMinute: config.rateLimitPerMinute,
    media:
      config.media.driver === 's3'
        ? {
            ...config.media,
            accessKeyId: secret(config.media.accessKeyId),
            secretAccessKey: secret(config.media.secretAccessKey),
          }
        : config.media,
    mediaRetention: config.mediaRetention,
    videoConversion: config.videoConversion,
    worker: config.worker,
    webhooks: config.webhooks,
    imageApi: config.imageApi ? { ...config.imageApi, key: secret(config.imageApi.key) } : undefined,
    metrics: { token: secret(config.metrics.token), listen: config.metrics.listen },
    trustProxy: config.trustProxy,
    mcpAllowedOrigins: config.mcpAllowedOrigins,
    backups: config.backups,
    networks: {
      twitter: { ...networks.twitter, clientSecret: secret(networks.twitter.clientSecret) },
      youtube: { ...networks.youtube, clientSecret: secret(networks.youtube.clientSecret) },
      meta: {
        ...networks.meta,
        appSecret: secret(networks.meta.appSecret),
        instagramAppSecret: secret(networks.meta.instagramAppSecret),
      },
      threads: { ...networks.threads, appSecret: secret(networks.threads.appSecret) },
      linkedin: { ...networks.linkedin, clientSecret: secret(networks.linkedin.clientSecret) },
      bluesky: networks.bluesky,
    },
  }
}
