import { describe, expect, it } from 'vitest'
import { checkAddress } from '../../src/platform/egress/address-policy.js'

describe('the media address policy', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['169.254.169.254', 'cloud_metadata'],
    ['169.254.170.2', 'cloud_metadata'],
    ['100.100.100.200', 'cloud_metadata'],
    ['169.254.1.1', 'link_local'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'cloud_metadata'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['fc00::1', 'private'],
    ['fd00:ec2::254', 'cloud_metadata'],
    ['fe80::1', 'link_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
  ])('refuses %s as %s', (address, category) => {
    expect(checkAddress(address)).toMatchObject({ allowed: false, category })
  })

  it.each([['93.184.216.34'], ['8.8.8.8'], ['172.32.0.1'], ['2606:4700:4700::1111'], ['::ffff:8.8.8.8']])(
    'allows the public address %s',
    (address) => {
      expect(checkAddress(address)).toEqual({ allowed: true })
    },
  )

  it('lets loopback and private ranges through only when private media is allowed, never metadata', () => {
    const open = { allowPrivate: true }
    expect(checkAddress('127.0.0.1', open)).toEqual({ allowed: true })
    expect(checkAddress('::1', open)).toEqual({ allowed: true })
    expect(checkAddress('10.1.1.1', open)).toEqual({ allowed: true })
    expect(checkAddress('169.254.169.254', open)).toMatchObject({
      allowed: false,
      category: 'cloud_metadata',
    })
    expect(checkAddress('0.0.0.0', open)).toMatchObject({ allowed: false })
  })
})
