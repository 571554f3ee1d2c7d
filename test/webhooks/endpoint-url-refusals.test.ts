import { describe, expect, it } from 'vitest'
import { checkEndpointUrl } from '../../src/modules/outbox/endpoints.js'

/**
 * A webhook URL refused for its host reads the same whether the name does not resolve or resolves inside
 * the network: whoever tries names learns nothing about which internal hosts exist.
 */
describe('webhook endpoint URL refusals', () => {
  const answers: Record<string, Array<{ address: string; family: 4 | 6 }>> = {
    'loopback.corp.test': [{ address: '127.0.0.1', family: 4 }],
    'db.corp.test': [{ address: '10.0.0.5', family: 4 }],
    'link.corp.test': [{ address: '169.254.10.1', family: 4 }],
    'mixed.corp.test': [
      { address: '93.184.216.34', family: 4 },
      { address: 'fd00::5', family: 6 },
    ],
    'empty.corp.test': [],
    'public.example.test': [{ address: '93.184.216.34', family: 4 }],
  }
  const deps = {
    publicBaseUrl: 'http://127.0.0.1:3000',
    allowPrivate: false,
    lookup: async (host: string) => {
      const found = answers[host]
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
      return found
    },
  }
  const refusal = async (url: string) => {
    try {
      await checkEndpointUrl(deps, url)
    } catch (error) {
      expect((error as { code?: string }).code).toBe('invalid_request')
      return (error as Error).message
    }
    throw new Error(`${url} was accepted`)
  }

  it('gives one message for a name that does not resolve and one that resolves inside the network', async () => {
    const hosts = [
      'nowhere.corp.test',
      'loopback.corp.test',
      'db.corp.test',
      'link.corp.test',
      'mixed.corp.test',
      'empty.corp.test',
    ]
    const messages = await Promise.all(hosts.map((host) => refusal(`https://${host}/hook`)))
    const unnamed = new Set(messages.map((message, i) => message.replace(hosts[i] as string, '<host>')))
    expect(unnamed.size).toBe(1)
    const [message] = [...unnamed] as [string]
    expect(message).not.toMatch(/resolv(es|e) to a|could not resolve|ENOTFOUND|no address|loopback address/i)
    expect(message).toMatch(/^Refusing to deliver to <host>: Herald delivers only to/)
    expect(message).toContain('HERALD_ALLOW_PRIVATE_WEBHOOKS=1')
  })

  it('gives the same message for a private IP address, and accepts a public host', async () => {
    const literal = await refusal('http://10.1.2.3:8080/hook')
    expect(literal.replace('10.1.2.3:8080', '<host>')).toBe(
      (await refusal('https://db.corp.test/hook')).replace('db.corp.test', '<host>'),
    )
    expect(await checkEndpointUrl(deps, 'https://public.example.test/hook')).toBe(
      'https://public.example.test/hook',
    )
  })
})
