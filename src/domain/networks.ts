/** The network values, exactly as the spec spells them. */
export const networks = [
  'linkedin',
  'twitter',
  'facebook',
  'instagram',
  'threads',
  'bluesky',
  'youtube',
] as const

export type Network = (typeof networks)[number]

export const isNetwork = (value: string): value is Network => (networks as readonly string[]).includes(value)
