/**
 * How every browser test launches Debian's Chromium with playwright-core (Playwright's own download does
 * not work here): spread into `chromium.launchPersistentContext(profileDir, { ...CHROMIUM, ... })`.
 */
export const CHROMIUM = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
}
