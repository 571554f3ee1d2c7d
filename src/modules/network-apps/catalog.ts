import { isIP } from 'node:net'
import type { AppNetwork } from '../../adapters/apps.js'
import { GOOGLE_BUSINESS_SCOPES } from '../../adapters/googlebusiness/index.js'
import { INSTAGRAM_LOGIN_SCOPES } from '../../adapters/instagram/login.js'
import { MEMBER_SCOPES, ORGANIZATION_SCOPES } from '../../adapters/linkedin/settings.js'
import { FACEBOOK_LOGIN_SCOPES } from '../../adapters/meta/facebook-login.js'
import { PINTEREST_SCOPES } from '../../adapters/pinterest/settings.js'
import { THREADS_SCOPES } from '../../adapters/threads/oauth.js'
import { TIKTOK_SCOPES } from '../../adapters/tiktok/index.js'
import { twitterScopes } from '../../adapters/twitter/index.js'
import { YOUTUBE_SCOPES } from '../../adapters/youtube/index.js'
import { checkAddress } from '../../platform/egress/address-policy.js'

/**
 * How to make each network's developer app, as data: where (the network's developer portal), what to
 * create and switch on, the permissions Herald asks for (the adapters' own scope lists, so the page cannot
 * drift from what the sign-in requests), and what the two values are called there.
 */
export interface AppGuide {
  /** The network's developer portal, where the app is created, and its name. */
  portal: string
  portalName: string
  /** The steps in the portal, in order; `{callback}` is replaced by the exact callback URL. */
  steps: string[]
  /** The permissions (scopes) Herald's sign-in asks for; the app must be allowed each of them. */
  scopes: readonly string[]
  /** LinkedIn: the extra scopes asked for when the app has the Community Management API. */
  pageScopes?: readonly string[]
  /** What the network calls the two values. */
  idName: string
  secretName: string
  /** Said plainly above the steps: what the network withholds until it approves the app, and what then happens. */
  notice?: string
}

export const appGuides: Record<AppNetwork, AppGuide> = {
  twitter: {
    portal: 'https://developer.x.com/en/portal/dashboard',
    portalName: 'X developer portal',
    steps: [
      'Create a project and an app in it.',
      'In the app’s “User authentication settings”, turn on OAuth 2.0, choose “Web App, Automated App or Bot” and the app permissions “Read and write”.',
      'Enter the callback URL below as the “Callback URI / Redirect URL”, and this Herald’s address as the website.',
      'Copy the OAuth 2.0 client ID and client secret (not the API key and secret, which are for the older API).',
    ],
    scopes: twitterScopes,
    idName: 'OAuth 2.0 Client ID',
    secretName: 'Client Secret',
  },
  youtube: {
    portal: 'https://console.cloud.google.com/apis/credentials',
    portalName: 'Google Cloud console',
    steps: [
      'Create a Google Cloud project, and enable the “YouTube Data API v3” for it in the API library.',
      'Set up the OAuth consent screen (External) with the scopes below. While it is in “Testing”, add each channel owner as a test user: Google then ends their sign-in after 7 days.',
      'Create credentials → OAuth client ID → “Web application”, with the callback URL below as an authorised redirect URI.',
      'Copy the client ID and client secret.',
    ],
    scopes: YOUTUBE_SCOPES,
    idName: 'Client ID',
    secretName: 'Client secret',
  },
  facebook: {
    portal: 'https://developers.facebook.com/apps',
    portalName: 'Meta for Developers',
    steps: [
      'Create a Business app.',
      'Add the “Facebook Login for Business” product, and enter the callback URL below as a valid OAuth redirect URI.',
      'Request the permissions below (Pages you do not manage yourself need them approved in App Review).',
      'Copy the App ID and App Secret from App settings → Basic.',
    ],
    scopes: FACEBOOK_LOGIN_SCOPES,
    idName: 'App ID',
    secretName: 'App Secret',
  },
  instagram: {
    portal: 'https://developers.facebook.com/apps',
    portalName: 'Meta for Developers',
    steps: [
      'In a Meta app (the Facebook one can serve), add the Instagram product and choose “API setup with Instagram login”.',
      'Under business login settings, enter the callback URL below as the redirect URL.',
      'Copy the Instagram app ID and Instagram app secret shown there: they differ from the Meta app’s own.',
      'Only needed for Instagram professional accounts without a Facebook Page; the others connect through Facebook.',
    ],
    scopes: INSTAGRAM_LOGIN_SCOPES,
    idName: 'Instagram app ID',
    secretName: 'Instagram app secret',
  },
  threads: {
    portal: 'https://developers.facebook.com/apps',
    portalName: 'Meta for Developers',
    steps: [
      'Create a Meta app with the “Access the Threads API” use case.',
      'In the use case’s settings, enter the callback URL below as the redirect callback URL, and add the permissions below.',
      'Copy the Threads app ID and Threads app secret from the use case’s settings: they differ from the Meta app’s own.',
    ],
    scopes: THREADS_SCOPES,
    idName: 'Threads app ID',
    secretName: 'Threads app secret',
  },
  linkedin: {
    portal: 'https://www.linkedin.com/developers/apps',
    portalName: 'LinkedIn Developers',
    steps: [
      'Create an app (LinkedIn links it to a company page you administer).',
      'Under Products, add “Sign In with LinkedIn using OpenID Connect” and “Share on LinkedIn”. To post as pages, also apply for the “Community Management API”.',
      'Under Auth, enter the callback URL below as an authorised redirect URL.',
      'Copy the client ID and the primary client secret.',
    ],
    scopes: MEMBER_SCOPES,
    pageScopes: ORGANIZATION_SCOPES,
    idName: 'Client ID',
    secretName: 'Primary Client Secret',
  },
  googlebusiness: {
    portal: 'https://console.cloud.google.com/apis/credentials',
    portalName: 'Google Cloud console',
    notice:
      'Google grants access to the Business Profile APIs only on application. Until Google approves this project’s application for Basic API Access, every call is refused with a quota of 0 requests a minute: connecting a location fails, and a post meeting that refusal fails with a message saying so. A quota increase request does not grant access; the access application does.',
    steps: [
      'Create a Google Cloud project (the YouTube one can serve) and note its project number.',
      'Apply for access with Google’s “Application for Basic API Access” form (linked from developers.google.com/my-business/content/prereqs), naming that project number, and wait for Google’s approval.',
      'Enable in the API library: “My Business Account Management API”, “My Business Business Information API”, “Business Profile Performance API” and “Google My Business API” (the one that takes posts).',
      'Set up the OAuth consent screen (External) with the permission below. While it is in “Testing”, add each person who manages the locations as a test user: Google then ends their sign-in after 7 days.',
      'Create credentials → OAuth client ID → “Web application”, with the callback URL below as an authorised redirect URI.',
      'Copy the client ID and client secret.',
    ],
    scopes: GOOGLE_BUSINESS_SCOPES,
    idName: 'Client ID',
    secretName: 'Client secret',
  },
  tiktok: {
    portal: 'https://developers.tiktok.com/apps',
    portalName: 'TikTok for Developers',
    steps: [
      'Create an app, and add the products “Login Kit” and “Content Posting API”; in the Content Posting API’s settings, turn on “Direct Post”.',
      'Under Login Kit, enter the callback URL below as a redirect URI (TikTok takes https addresses only), and add the permissions below.',
      'Under URL properties, verify the domain of this Herald’s public address (a DNS TXT record), or a URL prefix ending in /media/: TikTok fetches photo posts from Herald’s hosted copies there and refuses any other address.',
      'Submit the app for review, then apply for the Content Posting API audit. Until TikTok audits the app, every post is visible only to the creator, and only creators with a private account can post: tick “TikTok has audited this app” below once it has.',
      'Copy the client key and client secret from the app’s page.',
    ],
    scopes: TIKTOK_SCOPES,
    idName: 'Client key',
    secretName: 'Client secret',
  },
  pinterest: {
    portal: 'https://developers.pinterest.com/apps/',
    portalName: 'Pinterest Developers',
    steps: [
      'Connect a Pinterest business account, then create an app (Pinterest reviews it and grants Trial access).',
      'In the app’s settings, enter the callback URL below as a redirect URI.',
      'Copy the App ID and the App secret key.',
      'With Trial access Pinterest refuses pins on its production host: set HERALD_PINTEREST_API_URL=https://api-sandbox.pinterest.com/v5 (pins made there are seen only by their owner) until you request Standard access with a demo video of the connect flow.',
    ],
    scopes: PINTEREST_SCOPES,
    idName: 'App ID',
    secretName: 'App secret key',
  },
}

/**
 * Why this Herald's address will not do for registering apps, or undefined when it will: the networks want
 * the callback on https (most refuse plain http except, for some, on localhost during development), and a
 * hosted AI assistant must reach Herald on a public https address.
 */
export function publicAddressProblem(publicBaseUrl: string): string | undefined {
  const url = new URL(publicBaseUrl)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const local =
    host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && !checkAddress(host).allowed)
  if (url.protocol === 'https:' && !local) return undefined
  return `This Herald’s address is ${publicBaseUrl}, ${local ? 'which only this machine or its network can reach' : 'which is not https'}. Most networks accept only an https callback URL on a public address, and hosted AI assistants need one too: set PUBLIC_BASE_URL to the https address people reach Herald at (behind a reverse proxy or a tunnel) before you register the apps.`
}
