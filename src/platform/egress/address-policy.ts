import { isIP } from 'node:net'

/**
 * Which IP addresses a media fetch may connect to. Pure: no DNS, no sockets. Only globally routable
 * unicast addresses pass; everything else is refused with the range it fell in. Forms that smuggle an
 * IPv4 address inside IPv6 (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged
 * by the IPv4 address they carry.
 */

export type AddressCategory =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cloud_metadata'
  | 'multicast'
  | 'unspecified'
  | 'reserved'

export type AddressVerdict = { allowed: true } | { allowed: false; category: AddressCategory; reason: string }

export interface AddressPolicyOptions {
  /** HERALD_ALLOW_PRIVATE_MEDIA: lets loopback and private ranges through (tests, local demos). Never metadata. */
  allowPrivate?: boolean
}

interface Range4 {
  base: number
  bits: number
  category: AddressCategory
  label: string
}

const v4 = (text: string): number => text.split('.').reduce((acc, part) => acc * 256 + Number(part), 0)

const range4 = (cidr: string, category: AddressCategory, label: string): Range4 => {
  const [base, bits] = cidr.split('/') as [string, string]
  return { base: v4(base), bits: Number(bits), category, label }
}

/** Known instance-metadata endpoints, named so the refusal says what was being reached for. */
const metadata4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192'].map(v4))

const ranges4: Range4[] = [
  range4('0.0.0.0/8', 'unspecified', '"this network" (0.0.0.0/8)'),
  range4('10.0.0.0/8', 'private', 'private network (10.0.0.0/8)'),
  range4('100.64.0.0/10', 'private', 'carrier-grade NAT (100.64.0.0/10)'),
  range4('127.0.0.0/8', 'loopback', 'loopback (127.0.0.0/8)'),
  range4('169.254.0.0/16', 'link_local', 'link-local (169.254.0.0/16)'),
  range4('172.16.0.0/12', 'private', 'private network (172.16.0.0/12)'),
  range4('192.0.0.0/24', 'reserved', 'IETF protocol assignments (192.0.0.0/24)'),
  range4('192.0.2.0/24', 'reserved', 'documentation (192.0.2.0/24)'),
  range4('192.88.99.0/24', 'reserved', '6to4 relay (192.88.99.0/24)'),
  range4('192.168.0.0/16', 'private', 'private network (192.168.0.0/16)'),
  range4('198.18.0.0/15', 'reserved', 'benchmarking (198.18.0.0/15)'),
  range4('198.51.100.0/24', 'reserved', 'documentation (198.51.100.0/24)'),
  range4('203.0.113.0/24', 'reserved', 'documentation (203.0.113.0/24)'),
  range4('224.0.0.0/4', 'multicast', 'multicast (224.0.0.0/4)'),
  range4('240.0.0.0/4', 'reserved', 'reserved (240.0.0.0/4)'),
]

const inRange4 = (address: number, range: Range4) =>
  range.bits === 0 ||
  Math.floor(address / 2 ** (32 - range.bits)) === Math.floor(range.base / 2 ** (32 - range.bits))

function judge4(address: number, options: AddressPolicyOptions, shown: string): AddressVerdict {
  if (metadata4.has(address))
    return refuse('cloud_metadata', `${shown} is a cloud instance-metadata address`, options)
  const hit = ranges4.find((range) => inRange4(address, range))
  return hit ? refuse(hit.category, `${shown} is in ${hit.label}`, options) : { allowed: true }
}

function refuse(category: AddressCategory, reason: string, options: AddressPolicyOptions): AddressVerdict {
  if (options.allowPrivate && (category === 'loopback' || category === 'private')) return { allowed: true }
  return { allowed: false, category, reason }
}

/** Eight 16-bit groups of an IPv6 address (any textual form, including a trailing dotted quad). */
export function parseIpv6(text: string): number[] | undefined {
  let value = text.toLowerCase().replace(/^\[|\]$/g, '')
  const zone = value.indexOf('%')
  if (zone >= 0) value = value.slice(0, zone)
  if (isIP(value) !== 6) return undefined
  const dotted = value.match(/(\d+\.\d+\.\d+\.\d+)$/)
  if (dotted) {
    const n = v4(dotted[1]!)
    value = `${value.slice(0, -dotted[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const [head, tail] = value.includes('::') ? (value.split('::') as [string, string]) : [value, undefined]
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16))
  const left = parse(head)
  if (tail === undefined) return left
  const right = parse(tail)
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right]
}

const embedded4 = (high: number, low: number) => high * 0x10000 + low

function judge6(groups: number[], options: AddressPolicyOptions, shown: string): AddressVerdict {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  const zeroUntil = (n: number) => groups.slice(0, n).every((g) => g === 0)
  if (zeroUntil(8)) return refuse('unspecified', `${shown} is the unspecified address (::)`, options)
  if (zeroUntil(7) && g7 === 1) return refuse('loopback', `${shown} is the IPv6 loopback (::1)`, options)
  if (zeroUntil(5) && g5 === 0xffff) return judge4(embedded4(g6, g7), options, `${shown} (IPv4-mapped)`)
  if (zeroUntil(6)) return refuse('reserved', `${shown} is an IPv4-compatible address (::/96)`, options)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return judge4(embedded4(g6, g7), options, `${shown} (NAT64)`)
  if (g0 === 0x2002) return judge4(embedded4(g1, g2), options, `${shown} (6to4)`)
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 + g3 + g4 + g5 + g6 === 0 && g7 === 0x254)
    return refuse('cloud_metadata', `${shown} is a cloud instance-metadata address`, options)
  if ((g0 & 0xfe00) === 0xfc00)
    return refuse('private', `${shown} is a unique local address (fc00::/7)`, options)
  if ((g0 & 0xffc0) === 0xfe80) return refuse('link_local', `${shown} is link-local (fe80::/10)`, options)
  if ((g0 & 0xffc0) === 0xfec0) return refuse('reserved', `${shown} is site-local (fec0::/10)`, options)
  if ((g0 & 0xff00) === 0xff00) return refuse('multicast', `${shown} is multicast (ff00::/8)`, options)
  if (g0 === 0x2001 && g1 === 0x0db8)
    return refuse('reserved', `${shown} is documentation (2001:db8::/32)`, options)
  if (g0 === 0x2001 && g1 < 0x0200)
    return refuse('reserved', `${shown} is an IETF special-purpose address (2001::/23)`, options)
  if ((g0 & 0xe000) !== 0x2000)
    return refuse('reserved', `${shown} is outside global unicast (2000::/3)`, options)
  return { allowed: true }
}

/** Whether a media fetch may connect to `address` (an IPv4 or IPv6 literal, brackets allowed). */
export function checkAddress(address: string, options: AddressPolicyOptions = {}): AddressVerdict {
  const bare = address.replace(/^\[|\]$/g, '')
  if (isIP(bare) === 4) return judge4(v4(bare), options, bare)
  const groups = parseIpv6(bare)
  if (groups) return judge6(groups, options, bare)
  return { allowed: false, category: 'reserved', reason: `${address} is not an IP address` }
}
