import { describe, expect, it } from 'vitest'
import { publicHostProblem } from '../../src/posts/media-host.js'

describe('whether the internet can fetch media from PUBLIC_BASE_URL', () => {
  it('accepts a public https host name or address', () => {
    expect(publicHostProblem('https://herald.example.org')).toBeUndefined()
    expect(publicHostProblem('https://203.0.114.7:8443')).toBeUndefined()
  })
  it('refuses plain http, localhost, private and loopback addresses, and local names', () => {
    expect(publicHostProblem('http://herald.example.org')).toBe('is not https')
    expect(publicHostProblem('https://localhost:3000')).toBe('is not a public host name')
    expect(publicHostProblem('https://herald.local')).toBe('is not a public host name')
    expect(publicHostProblem('https://10.1.2.3')).toMatch(/private/)
    expect(publicHostProblem('https://127.0.0.1')).toMatch(/loopback/)
    expect(publicHostProblem('https://[::1]')).toMatch(/loopback/)
  })
})
