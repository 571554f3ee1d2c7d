/**
 * How every browser test launches Debian's Chromium with playwright-core (Playwright's own download does
 * not work here): spread into `chromium.launchPersistentContext(profileDir, { ...CHROMIUM, ... })`.
 *
 * The browser is whatever Debian ships when .ci/run installs it (Chromium 156.0.8078.114 when these tests
 * last ran), not the build playwright-core 1.65.1 was made for (159, node_modules/playwright-core/
 * browsers.json): the tests use only what both speak over the DevTools protocol. Layout checks (page widths,
 * image shapes) were measured there with DejaVu Sans, the font .ci/run installs.
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
