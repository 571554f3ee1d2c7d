import { describe, expect, it } from 'vitest'
import { didDocumentUrl, isPublicPdsUrl, jwtExpiry, pdsEndpoint } from '../../src/adapters/bluesky/session.js'

const DID = 'did:plc:abcdefghijklmnopqrstuvwx'

describe('Bluesky identity helpers', () => {
  it('finds the DID document of did:plc at the PLC directory and of did:web on its host', () => {
    expect(didDocumentUrl(DID, 'https://plc.directory/')).toBe(`https://plc.directory/${DID}`)
    expect(didDocumentUrl('did:web:pds.example.com', 'https://plc.directory')).toBe(
      'https://pds.example.com/.well-known/did.json',
    )
    expect(didDocumentUrl('did:web:localhost%3A8080', 'https://plc.directory')).toBe(
      'https://localhost:8080/.well-known/did.json',
    )
    expect(didDocumentUrl('did:key:z6Mk', 'https://plc.directory')).toBeUndefined()
    expect(didDocumentUrl('did:plc:../../admin', 'https://plc.directory')).toBeUndefined()
  })

  it('reads the #atproto_pds service of a DID document in either id form', () => {
    const service = (id: string, endpoint = 'https://morel.us-east.host.bsky.network/') => ({
      id: DID,
      service: [{ id, type: 'AtprotoPersonalDataServer', serviceEndpoint: endpoint }],
    })
    expect(pdsEndpoint(service('#atproto_pds'), DID)).toBe('https://morel.us-east.host.bsky.network')
    expect(pdsEndpoint(service(`${DID}#atproto_pds`), DID)).toBe('https://morel.us-east.host.bsky.network')
    expect(pdsEndpoint(service('#atproto_labeler'), DID)).toBeUndefined()
    expect(pdsEndpoint(service('#atproto_pds', 'ftp://pds.example'), DID)).toBeUndefined()
    expect(pdsEndpoint({ id: DID }, DID)).toBeUndefined()
  })

  describe.each([
    ['https://morel.us-east.host.bsky.network', true],
    ['https://pds.example.com:8443', true],
    ['http://pds.example.com', false],
    ['https://localhost:2583', false],
    ['https://127.0.0.1', false],
    ['https://10.1.2.3', false],
    ['https://172.20.0.1', false],
    ['https://192.168.1.10', false],
    ['https://169.254.169.254', false],
    ['https://[::1]', false],
    ['https://[fd00::1]', false],
  ])('a PDS at %s', (url, expected) => {
    it(expected ? 'may receive a session' : 'is refused', () => {
      expect(isPublicPdsUrl(new URL(url))).toBe(expected)
    })
  })

  it('reads the expiry of a JWT and tolerates tokens without one', () => {
    const token = (claims: object) =>
      ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'sig'].join('.')
    expect(jwtExpiry(token({ exp: 1_800_000_000 }))).toBe(1_800_000_000_000)
    expect(jwtExpiry(token({ sub: DID }))).toBeUndefined()
    expect(jwtExpiry('not-a-jwt')).toBeUndefined()
  })
})
