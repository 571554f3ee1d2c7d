/** The network values, exactly as the spec spells them. */
export const networks = [
  'linkedin',
  'twitter',
  'facebook',
  'instagram',
  'threads',
  'bluesky',
  'youtube',
  'googlebusiness',
  'tiktok',
  'pinterest',
  'mastodon',
] as const

export type Network = (typeof networks)[number]

export const isNetwork = (value: string): value is Network => (networks as readonly string[]).includes(value)

/** How each network is named to people (the network value stays the identifier everywhere else). */
export const networkLabels: Record<Network, string> = {
  linkedin: 'LinkedIn',
  twitter: 'X',
  facebook: 'Facebook',
  instagram: 'Instagram',
  threads: 'Threads',
  bluesky: 'Bluesky',
  youtube: 'YouTube',
  googlebusiness: 'Google Business Profile',
  tiktok: 'TikTok',
  pinterest: 'Pinterest',
  mastodon: 'Mastodon',
}

/** A network's name for people when `id` is a network value; anything else as it is. */
export const labelOf = (id: string): string => (isNetwork(id) ? networkLabels[id] : id)
